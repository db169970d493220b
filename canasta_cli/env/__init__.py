"""Canasta for machine learning: a PettingZoo environment (``aec_env``, and ``parallel_env``
behind the parallel API; either with the other seats' players inside, ``opponents=``), a
gymnasium single-agent environment (``single_agent_env``), an OpenSpiel game, and a way back
from a trained policy to a protocol bot (docs/ML.md).  Evaluation against built-ins in
duplicate deals, as ``canasta tournament`` plays them, is ``canasta_cli.tournament.evaluate``
(it plays as a tournament does, and this room may not import the tournament's).

``pip install 'canasta[rl]'`` brings what ``aec_env`` needs (pettingzoo, gymnasium, numpy);
``as_player`` and the action table need numpy only.  Importing this package needs neither:
the names below load their module on first use.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_WHERE = {
    "aec_env": "aec", "CanastaEnv": "aec", "IllegalActionError": "aec",
    "parallel_env": "parallel", "CanastaParallelEnv": "parallel",
    "single_agent_env": "single", "CanastaSingleEnv": "single",
    "OpponentError": "opponents",
    "as_player": "player", "PolicyPlayer": "player",
    "action_table": "actions", "ActionTable": "actions", "ActionError": "actions",
    "Encoder": "observe", "Layout": "observe", "PublicTracker": "public",
}

__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'canasta_cli.env' has no attribute {name!r}")
    return getattr(import_module(f".{module}", __name__), name)
