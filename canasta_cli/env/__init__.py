"""Canasta for machine learning: a PettingZoo environment (``aec_env``, and ``parallel_env``
behind the parallel API), an OpenSpiel game, and a way back from a trained policy to a
protocol bot (docs/ML.md).

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
