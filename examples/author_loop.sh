#!/usr/bin/env bash
# The bot author's loop, end to end, in a fresh folder: a starter bot, the check, a second
# version with a bug that the check's stacked deals catch, that decision put to the bot again
# with `bot ask`, then a ladder of three bots over two runs (with the failed games it keeps).
# Run it with `canasta` (and the Python that has canasta_kit) first on PATH.
set -u
dir=$(mktemp -d)
cd "$dir" || exit 1
run() {  # show the command, then the end of what it printed and its exit code
    local keep=$1; shift
    printf '$'; printf ' %q' "$@"; echo
    "$@" > out.txt 2>&1
    local rc=$?
    tail -n "$keep" out.txt | cut -c1-200
    echo "(exit $rc)"
}
run 3 canasta kit init mybot --lang python
cd mybot || exit 1
run 3 canasta bot check "python3 bot.py" --games 2 --rules two-player
# Version 2 "handles the end of the stock", wrongly: it crashes once the stock runs low.
sed 's/^def choose(observation: dict\[str, Any\], moves: list\[dict\[str, Any\]\]) -> Any:$/&\
    if observation["stock_size"] < 40 and any(m["action"] == "draw" for m in moves):\
        print("endgame: the stock is low", file=sys.stderr)\
        raise KeyError("endgame table")/' bot.py > bot2.py
run 9 canasta bot check "python3 bot2.py" --games 2 --rules two-player
grep '^FAIL' out.txt | cut -c1-200
ask=$(grep -o 'canasta bot ask .*' out.txt)
run 6 bash -c "$ask"
grep -E '^(seat|no answer)' out.txt | cut -c1-200
db=ladder.sqlite
run 1 canasta ladder add mine@1 "python3 bot.py" --db $db
run 1 canasta ladder add mine@2 "python3 bot2.py" --db $db
run 1 canasta ladder add greedy builtin:greedy --db $db
for i in 1 2; do
    run 6 canasta ladder run --games 6 --rules two-player --set max_hands=1 --db $db
done
run 4 canasta ladder history mine --db $db
run 4 canasta ladder failures mine@2 --last 1 --db $db
echo "(in $dir)"
