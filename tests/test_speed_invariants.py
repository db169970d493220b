"""Speed work must not change a single game, nor the exact answers of the feasibility search."""

from __future__ import annotations

import hashlib
import json
import random

import pytest
from typer.testing import CliRunner

from canasta_cli.__main__ import app
from canasta_cli.bench.corners import CORNERS
from canasta_cli.core import PRESETS, apply, legal_moves, new_game, preset
from canasta_cli.core.cards import KIND_VALUE
from canasta_cli.core.feasibility import _exact_opening, _wild_values
from canasta_cli.core.legality import situation
from canasta_cli.core.state import Phase

# Per preset, as commit 3ce4f47 played them: the digest of 8 hands of seeded random play (the
# loop of canasta_cli/bench/compare.py's player: every move and score must stay the same), and
# the digest of every event of two 3-hand games, with the physical cards (which card of a kind
# a move takes, the deal, the draws).
BEFORE = {
    "classic": ("50a3688d36efb876e4413b89d7d75228ffaf861d5f7d672d74d7058deca5bba3",
                "891e487f34d9623e1c1a1612250aee815aa846c63ef2d0989302ecd931f043b3"),
    "two-player": ("9bb3edfeca96e447a5afd8a751f7df83c836c54b39178e5f9d30a33f5d6c8875",
                   "bb503839115911c450900ddef77289340011d3c7a4d8859de18ee978abf8d4aa"),
    "three-player": ("25670a63ad182b111651e63d281af48e783d22ffb601ac6929f20e5d5633ec96",
                     "2f40872837a322c77e0f1d61d43b10f78c61f8434cf33806647d4cf7266dbf7a"),
    "six-player": ("ca1b4fbdfb7e82152ef49c2c88eebe6e187693f9947991b309b3d64327e6c180",
                   "1df1428bc998317cc811887aaca55419052a8b88cb33c735e281928119e7aade"),
    "pagat": ("d658aea862febe094da5ce28555f34c73a2ad1e7a87a957210c8a291d9b9a45a",
              "2ab99fc912822529f5087a58c265621ac3696afb9745e51b4e2403995bafb17c"),
}


@pytest.mark.parametrize("name", list(BEFORE))
def test_the_same_seed_plays_the_same_games_as_before(name: str) -> None:
    rules = preset(name).with_options(max_hands=1000)
    digest = hashlib.sha256()
    played = game = 0
    rng = random.Random(0)
    while played < 8:
        state = new_game(rules, seed=game)
        game += 1
        while not state.is_over and played + len(state.results) < 8:
            moves = legal_moves(state)
            move = moves[rng.randrange(len(moves))]
            digest.update(repr(move).encode())
            state = apply(state, move)
        played += len(state.results)
        digest.update(repr(state.scores).encode())
    assert digest.hexdigest() == BEFORE[name][0]


def _reference_exact_opening(s, need: int, keep: int) -> bool:  # type: ignore[no-untyped-def]
    """The unbounded dynamic program the engine used before (every (wilds, cards) pair)."""
    hc, maxw, c4 = s.hc, s.maxw, s.c4
    wilds = _wild_values(s)
    prefix = [0]
    for v in wilds:
        prefix.append(prefix[-1] + v)
    states = {(0, 0): 0}
    for r in range(11):
        n = hc[r]
        options: list[tuple[int, int]] = []
        if s.ex[r]:
            for a in range(n + 1):
                lim = (min(maxw, s.nat[r] + a) if c4 else maxw) - s.wild[r]
                options.extend((a, w) for w in range(max(0, lim) + 1))
        else:
            for a in range(2, n + 1):
                lim = min(maxw, a) if c4 else maxw
                options.extend((a, w) for w in range(lim + 1) if a + w >= 3)
        if not options:
            continue
        nxt = dict(states) if not s.ex[r] else {}
        for (w0, c0), v0 in states.items():
            for a, w in options:
                if w0 + w > len(wilds):
                    continue
                key = (w0 + w, c0 + a + w)
                val = v0 + a * KIND_VALUE[r]
                if nxt.get(key, -1) < val:
                    nxt[key] = val
        states = nxt
    return any(s.hand_n - c >= keep and v + prefix[w] >= need for (w, c), v in states.items())


@pytest.mark.parametrize("name", list(BEFORE))
def test_the_same_seed_logs_the_same_cards_as_before(name: str) -> None:
    rules = preset(name).with_options(max_hands=3)
    digest = hashlib.sha256()
    rng = random.Random(1)
    for g in range(2):
        st = new_game(rules, seed=g)
        while not st.is_over:
            moves = legal_moves(st)
            st = apply(st, moves[rng.randrange(len(moves))])
        for event in st.events():
            digest.update(json.dumps(event.full(), sort_keys=True).encode())
    assert digest.hexdigest() == BEFORE[name][1]


@pytest.mark.parametrize("name", list(PRESETS))
def test_the_bounded_opening_search_agrees_with_the_unbounded_one(name: str) -> None:
    rules = PRESETS[name].with_options(max_hands=1)
    checked = 0
    for seed in range(6):
        st = new_game(rules, seed=seed)
        rng = random.Random(seed)
        while not st.is_over:
            if st.phase is Phase.MELD:
                s = situation(st)
                for need in (5, 30, 50, 90, 120, 150, 200):
                    for keep in (0, 1, 2):
                        assert _exact_opening(s, need, keep) == \
                            _reference_exact_opening(s, need, keep), (st, need, keep)
                        checked += 1
            st = apply(st, rng.choice(legal_moves(st)))
    assert checked > 100


def test_the_built_corners_keep_their_exact_move_lists() -> None:
    """The whole-pack hands: the same move counts as the unbounded search gave (measured on
    3ce4f47: 113, 709 and 1149 moves)."""
    counts = [len(legal_moves(c.build())) for c in CORNERS[1:]]
    assert counts == [113, 709, 1149]


def test_bench_corners_prints_every_case() -> None:
    result = CliRunner().invoke(app, ["bench", "corners", "--hands", "1"])
    assert result.exit_code == 0, result.output
    assert "148 cards in one hand" in result.output and "slowest reachable:" in result.output


@pytest.mark.parametrize("name", list(PRESETS))
def test_the_counts_kept_in_the_state_match_a_recount(name: str) -> None:
    from canasta_cli.core.state import kind_counts, row_info
    rules = PRESETS[name].with_options(max_hands=2)
    for seed in range(4):
        st = new_game(rules, seed=seed)
        rng = random.Random(seed)
        while not st.is_over:
            assert st.hc == tuple(kind_counts(h) for h in st.hands)
            assert st.minfo == tuple(row_info(row) for row in st.melds)
            st = apply(st, rng.choice(legal_moves(st)))


@pytest.mark.parametrize("name", list(PRESETS))
def test_incremental_history_equals_the_whole_log(name: str) -> None:
    """Observations reuse the views made for earlier states: the history must be exactly the
    whole log's views, also when an older state is observed after a newer one."""
    from canasta_cli.core import observation
    rules = PRESETS[name].with_options(max_hands=2)
    st = new_game(rules, seed=5)
    rng = random.Random(5)
    kept = []
    while not st.is_over:
        seat = rng.randrange(rules.players)
        assert observation(st, seat)["history"] == [e.view(seat) for e in st.events()]
        if rng.random() < 0.05:
            kept.append(st)
        st = apply(st, rng.choice(legal_moves(st)))
    for old in kept:  # going back in time recomputes
        assert observation(old, 0)["history"] == [e.view(0) for e in old.events()]
