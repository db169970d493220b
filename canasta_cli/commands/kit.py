"""``canasta kit``: the bot kits as installed, and starter bots that pass ``bot check``."""

from __future__ import annotations

import shlex
import shutil
import sys
from importlib import resources
from pathlib import Path
from typing import Annotated

import typer

from .options import fail

kit_app = typer.Typer(help="Bot kits and starter bots.", no_args_is_help=True,
                      rich_markup_mode=None)

LANGS = {"python": ("bot.py", "{python} bot.py", ""),
         "js": ("bot.js", "node bot.js", ""),
         "c": ("bot.c", "./bot", "cc -O2 -o bot bot.c")}


def register(app: typer.Typer) -> None:
    app.add_typer(kit_app, name="kit")


def _starter(name: str) -> Path:
    return Path(str(resources.files("canasta_cli.starters").joinpath(name)))


def kit_file(lang: str) -> Path:
    """The installed kit for ``lang`` (python: the ``canasta_kit`` module pip installed)."""
    if lang == "python":
        import canasta_kit
        return Path(canasta_kit.__file__).resolve()
    return _starter("canasta_kit.js").resolve()


@kit_app.command("path")
def kit_path(lang: Annotated[str, typer.Option(help="python or js.")] = "python") -> None:
    """Print where the installed kit is (Python: ``import canasta_kit`` works already)."""
    if lang not in ("python", "js"):
        raise fail("--lang takes python or js")
    typer.echo(str(kit_file(lang)))


@kit_app.command("init")
def kit_init(directory: Annotated[Path, typer.Argument(help="A new or empty folder.")],
             lang: Annotated[str, typer.Option(help="python, js or c.")] = "python") -> None:
    """Write a starter bot (and a README of the commands to build, check and play it) that
    passes ``canasta bot check`` as written."""
    if lang not in LANGS:
        raise fail("--lang takes python, js or c")
    if directory.exists() and (not directory.is_dir() or any(directory.iterdir())):
        raise fail(f"{directory} exists and is not an empty folder")
    source, run_cmd, build = LANGS[lang]
    python = shlex.quote(sys.executable)
    run_cmd = run_cmd.format(python=python)
    directory.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(_starter(source), directory / source)
    if lang == "js":
        shutil.copyfile(kit_file("js"), directory / "canasta_kit.js")
    where = shlex.quote(str(directory.resolve()))
    steps = [f"cd {where}"]
    if build:
        steps.append(build + "                     # build (cc alone, no library)")
    steps += [f"canasta bot check {shlex.quote(run_cmd)} --games 10    # check",
              f"canasta tournament --bot mine={shlex.quote(run_cmd)} --bot normal=builtin:normal"
              " --games 20 --out results    # play"]
    readme = (f"# A Canasta bot ({lang})\n\n"
              f"`{source}` is a complete bot: it answers every request with a listed move."
              " Change its choice and run:\n\n```sh\n" + "\n".join(steps) + "\n```\n\n"
              "Debug output goes to stderr; stdout carries the protocol only (protocol/README.md"
              " in the canasta sources, or `canasta kit path`).  When a game fails, the"
              " tournament keeps the bot's stderr and a replay command in"
              " `results/failures/`.\n")
    (directory / "README.md").write_text(readme, encoding="utf-8")
    typer.echo(f"wrote {directory / source} and {directory / 'README.md'}; next:")
    for step in steps:
        typer.echo(f"  {step}")
