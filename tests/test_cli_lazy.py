"""``canasta COMMAND`` registers only COMMAND's module (``cli.GROUPS``), so a command imports
and builds only what it runs; every other command line gets the whole app."""

from __future__ import annotations

import subprocess
import sys

import typer.main

from canasta_cli.__main__ import GROUPS, app, make_app


def test_the_table_lists_what_each_module_registers_in_the_order_of_help() -> None:
    for module, names in GROUPS.items():
        assert tuple(typer.main.get_command(make_app((module,))).commands) == names, module  # type: ignore[attr-defined]
    whole = typer.main.get_command(app)
    assert sorted(whole.commands) == sorted(n for names in GROUPS.values() for n in names)  # type: ignore[attr-defined]


def _modules_after(argv: list[str]) -> set[str]:
    code = ("import sys\nfrom canasta_cli.__main__ import app_for\nsys.argv = ['canasta', *sys.argv[1:]]\n"
            "try:\n    app_for(sys.argv[1:])()\nexcept SystemExit:\n    pass\n"
            "print(' '.join(m for m in sys.modules if m.startswith('canasta_cli.')))")
    out = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True,
                         timeout=120, check=True).stdout
    return set(out.split()[-1000:]) if out else set()


def test_a_named_command_imports_its_own_module_only() -> None:
    loaded = _modules_after(["rules", "--json"])
    assert "canasta_cli.cli.explore" in loaded
    others = {f"canasta_cli.{m}" for m in GROUPS} - {"canasta_cli.cli.explore"}
    assert not loaded & others, loaded & others
    everything = _modules_after(["--help"])
    assert {f"canasta_cli.{m}" for m in GROUPS} <= everything


def test_a_misspelt_command_is_still_named_with_suggestions() -> None:
    out = subprocess.run([sys.executable, "-m", "canasta_cli.cli", "plya"], capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 2
    assert "No such command 'plya'. Did you mean 'play', 'replay'?" in out.stderr
