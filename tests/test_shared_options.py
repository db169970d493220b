"""The box and clock options are defined once (commands/options.py) and every command that
takes them shows the same flags, defaults and help."""

from __future__ import annotations

from pathlib import Path
from typing import Any, get_args

import pytest
import typer.main

from canasta_cli.__main__ import app
from canasta_cli.cli.options import (
    BANK_MS,
    BOX_OPTIONS,
    DECISION_MS,
    BankMsOpt,
    BoxOptions,
    DecisionMsOpt,
)

COMMANDS = {  # command -> box options it leaves out
    ("play",): set(), ("match",): set(), ("tournament",): set(), ("serve",): set(),
    ("join",): {"ponder"}, ("ladder", "run"): {"ponder", "bot_writable"},
    ("bot", "check"): {"ponder", "bot_writable"}, ("bot", "ask"): {"ponder", "bot_writable"},
}


def _command(path: tuple[str, ...]) -> Any:
    cmd: Any = typer.main.get_command(app)
    for name in path:
        cmd = cmd.commands[name]
    return cmd


def _params(path: tuple[str, ...]) -> dict[str, Any]:
    return {p.name: p for p in _command(path).params if p.name}


@pytest.mark.parametrize("path", list(COMMANDS))
def test_every_command_shows_the_box_options_of_the_one_spec(path: tuple[str, ...]) -> None:
    params = _params(path)
    defaults = BoxOptions()
    for name, annotated in BOX_OPTIONS:
        if name in COMMANDS[path]:
            assert name not in params, (path, name)
            continue
        info = get_args(annotated)[1]
        got = params[name]
        flag = "--" + name.replace("_", "-")
        assert flag in got.opts, (path, name, got.opts)
        assert getattr(got, "help", None) == info.help, (path, name)
        expected = getattr(defaults, name)
        assert got.default == expected or (expected is None and not got.default), (path, name)


@pytest.mark.parametrize("path", [("match",), ("tournament",), ("ladder", "run")])
def test_the_clock_options_are_the_same_everywhere(path: tuple[str, ...]) -> None:
    params = _params(path)
    for name, annotated, default in (("decision_ms", DecisionMsOpt, DECISION_MS),
                                     ("bank_ms", BankMsOpt, BANK_MS)):
        option = params[name]
        assert getattr(option, "help", None) == get_args(annotated)[1].help
        assert option.default == default


def test_box_options_as_arguments_name_only_what_differs_from_the_defaults() -> None:
    assert BoxOptions().args() == []
    opts = BoxOptions(unboxed=True, ponder=True, bot_memory=512, bot_disk=64,
                      bot_writable=[Path("/tmp/x")])
    assert opts.args() == ["--unboxed", "--ponder", "--bot-memory", "512", "--bot-writable",
                           "/tmp/x"]


def test_a_command_receives_its_box_options_as_one_object(monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    from typer.testing import CliRunner

    seen: list[tuple[BoxOptions, bool | None]] = []
    real = BoxOptions.setup

    def setup(self: BoxOptions, specs: list[str], ponder: bool | None = None) -> Any:
        seen.append((self, ponder))
        return real(self, specs, ponder)

    monkeypatch.setattr(BoxOptions, "setup", setup)
    result = CliRunner().invoke(app, ["match", *["--seat", "builtin:random"] * 4, "--set",
                                      "max_hands=1", "--bot-memory", "512", "--ponder",
                                      "--bot-procs", "9"])
    assert result.exit_code == 0, result.output
    assert seen == [(BoxOptions(ponder=True, bot_memory=512, bot_procs=9), None)]
