# The first process of every box (run as: sh -c "$(cat enter.sh)" box [bwrap] COMMAND...).
# It makes itself the OOM killer's first choice, enters the bot's control groups (CANASTA_CG,
# one file per line) and execs the rest, so that nothing the bot starts runs outside them.
# Before bubblewrap (first argument "bwrap") it moves the bot's input and output to fds 3 and
# 4, which bubblewrap's own processes close (they keep 0-2); hand_back.sh gives them back
# inside the box.  So the bot alone holds its pipes: closing one is seen by the referee at once.
echo 1000 >/proc/self/oom_score_adj 2>/dev/null
IFS='
'
for f in $CANASTA_CG; do
  echo $$ >"$f" || exit 125
done
unset IFS CANASTA_CG
if [ "$1" = bwrap ]; then
  shift
  exec 3<&0 4>&1 </dev/null >/dev/null
fi
exec "$@"
