"""The docs stay true, as ``test_engine_doc.py`` keeps docs/ENGINE.md true: README.md and
docs/*.md link only to files (and headings) that exist, every command has a synopsis whose
options are exactly those its ``--help`` lists, a ``canasta ...`` in the text names a command
and options it has, and the ``canasta`` command lines of the pages' ```sh blocks run.

A page marks a ```sh block that is not run whole with an HTML comment on the line before it
(GitHub does not show it):

* ``<!-- not run: REASON -->``: not run (it installs, builds or makes keys);
* ``<!-- run with --help: REASON -->``: each ``canasta`` line runs with ``--help`` appended, so
  its command and every option it names must exist (the command would wait for a person or
  the network, or take minutes); the block's other lines are not run.

Every other ```sh block runs whole under bash (``set -euo pipefail``) and must exit 0; the
README's first block, the two install commands, is compared word for word instead.  A page's
blocks run in order in one fresh folder (each block starts there), which holds a copy of
``bots/`` and ``examples/`` and the page's ``HOME`` and XDG folders; this Python's ``bin``
(``canasta``, and the ``python3`` that imports ``canasta_kit``) is first on PATH.

A ```text block that starts with ``canasta `` is a command's synopsis (the command's words,
then its arguments in capitals and its options).
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
CANASTA = str(BIN / "canasta")
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINKING = [*PAGES, ROOT / "protocol" / "README.md", ROOT / "bots" / "README.md",
           ROOT / "examples" / "README.md"]
INSTALL = ["python3 -m venv .venv && .venv/bin/pip install . && .venv/bin/canasta play",
           "python3 -m venv .venv && .venv/bin/pip install '.[dev]' && .venv/bin/python -m pytest -n auto"]

FENCE = re.compile(r"^(?P<indent> *)```(?P<info>[\w-]*)\n(?P<body>.*?)^(?P=indent)```[ \t]*$",
                   re.MULTILINE | re.DOTALL)
MARK = re.compile(r"<!--\s*(not run|run with --help):\s*\S[^>]*-->\s*\Z")
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
OPTION = re.compile(r"(?<![\w-])(?:--[a-z][a-z0-9-]*|-[a-zA-Z](?![\w-]))")


@dataclass(frozen=True)
class Block:
    page: Path
    info: str
    body: str
    mark: str  # "" (run whole), "not run" or "run with --help"


def blocks(page: Path) -> list[Block]:
    text = page.read_text(encoding="utf-8")
    out = []
    for m in FENCE.finditer(text):
        mark = MARK.search(text[:m.start()])
        out.append(Block(page, m["info"], m["body"], mark[1] if mark else ""))
    return out


def sh_blocks(page: Path) -> list[Block]:
    found = [b for b in blocks(page) if b.info == "sh"]
    if page.name == "README.md" and page.parent == ROOT:
        return found[1:]  # the install commands: see test_the_readme_starts_with_the_two_commands
    return found


def _outside_code(text: str) -> str:
    text = FENCE.sub("", text)
    return re.sub(r"`[^`\n]*`", "", text)


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, no punctuation but hyphens, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    seen: dict[str, int] = {}
    out = set()
    for line in FENCE.sub("", page.read_text(encoding="utf-8")).splitlines():
        m = re.match(r"#{1,6}\s+(.*)", line)
        if m:
            slug = _slug(m[1])
            n = seen.get(slug, 0)
            seen[slug] = n + 1
            out.add(slug if n == 0 else f"{slug}-{n}")
    return out


def test_the_readme_starts_with_the_two_commands_and_stays_a_front_page() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    title, intro, rest = text.split("\n\n", 2)
    assert title == "# canasta" and not intro.startswith(("#", "```"))
    assert rest.startswith("```sh\n")
    first = blocks(ROOT / "README.md")[0]
    assert first.info == "sh" and first.body.splitlines() == INSTALL
    lines = text.splitlines()
    assert len(lines) < 150, f"README.md has {len(lines)} lines: move detail to docs/"
    assert max(len(line) for line in lines) <= 120


@pytest.mark.parametrize("page", LINKING, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_leads_to_a_file(page: Path) -> None:
    bad = []
    for target in LINK.findall(_outside_code(page.read_text(encoding="utf-8"))):
        if re.match(r"[a-z]+:", target):
            continue  # https:, mailto:
        path, _, anchor = target.partition("#")
        where = (page.parent / path).resolve() if path else page
        if not where.exists():
            bad.append(f"{target}: no such file")
        elif anchor and where.suffix == ".md" and anchor not in anchors(where):
            bad.append(f"{target}: no heading #{anchor} in {where.name}")
    assert not bad, bad


# Synopses against the commands' own options ---------------------------------------------

@pytest.fixture(scope="module")
def commands() -> dict[str, Any]:
    """Every command that runs something (``bot check``, ``rules``...), by its words: the
    Click commands Typer builds from the whole app (read by their attributes: Typer may bring
    its own copy of Click)."""
    import typer

    from canasta_cli.__main__ import app
    out: dict[str, Any] = {}

    def walk(cmd: Any, words: tuple[str, ...]) -> None:
        subs = getattr(cmd, "commands", None)
        if subs is None:
            out[" ".join(words)] = cmd
            return
        for name, sub in subs.items():
            if not sub.hidden:
                walk(sub, (*words, name))

    walk(typer.main.get_command(app), ())
    return out


def _options(cmd: Any) -> list[set[str]]:
    """The options ``--help`` lists for ``cmd``, each as the set of its names."""
    return [{*p.opts, *p.secondary_opts} for p in cmd.params
            if p.param_type_name == "option" and not p.hidden and "--help" not in p.opts]


def synopses() -> list[tuple[Path, str]]:
    return [(b.page, b.body) for page in PAGES for b in blocks(page)
            if b.info == "text" and b.body.startswith("canasta ")]


def _words(body: str, commands: dict[str, Any]) -> str:
    """The command a synopsis is of: its longest run of leading words that names one."""
    tokens = body.split()[1:]
    for n in range(len(tokens), 0, -1):
        if " ".join(tokens[:n]) in commands:
            return " ".join(tokens[:n])
    return ""


def test_every_synopsis_lists_exactly_the_options_of_its_command(
        commands: dict[str, Any]) -> None:
    found = synopses()
    assert len(found) >= len(commands)
    wrong = []
    for page, body in found:
        words = _words(body, commands)
        if not words:
            wrong.append(f"{page.name}: no such command: {body.splitlines()[0]}")
            continue
        shown, real = set(OPTION.findall(body)), _options(commands[words])
        unknown = shown - set().union(*real)
        missing = [max(names, key=len) for names in real if not names & shown]
        if unknown or missing:
            wrong.append(f"{page.name}: canasta {words}: not in --help {sorted(unknown)},"
                         f" missing {sorted(missing)}")
    assert not wrong, "\n".join(wrong)


def test_the_commands_named_in_the_text_exist_with_their_options(
        commands: dict[str, Any]) -> None:
    """``canasta ...`` in a page's inline code names a command and only options it has."""
    wrong = []
    for page in [*PAGES, ROOT / "protocol" / "README.md"]:
        text = FENCE.sub("", page.read_text(encoding="utf-8"))
        for span in re.findall(r"`(canasta [^`]*)`", text):
            if span.split()[1].isupper():
                continue  # canasta COMMAND --help
            words = _words(span, commands)
            outer = re.sub(r"\"[^\"]*\"|'[^']*'", "", span)  # not a bot command's own options
            names = set().union(*_options(commands[words])) if words else set()
            unknown = [o for o in OPTION.findall(outer) if o not in names | {"--help"}]
            if not words and not any(c.startswith(span.split()[1] + " ") for c in commands):
                wrong.append(f"{page.name}: no such command: {span}")
            elif unknown:
                wrong.append(f"{page.name}: {span}: {unknown} not options of canasta {words}")
    assert not wrong, "\n".join(wrong)


def test_every_command_has_a_synopsis(commands: dict[str, Any]) -> None:
    shown = {_words(body, commands) for _, body in synopses()}
    assert not set(commands) - shown, sorted(set(commands) - shown)


def test_the_classes_architecture_md_names_are_where_it_says() -> None:
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    named = re.findall(r"`(\w+(?:Plan|Run))` in `([\w/]+\.py)`", text)  # the plans
    assert len(named) >= 5
    for name, path in named:
        source = ROOT / "canasta_cli" / path
        assert source.is_file() and re.search(rf"^class {name}\b", source.read_text("utf-8"),
                                              re.MULTILINE), f"no class {name} in {path}"


# The pages' command lines ---------------------------------------------------------------

def test_most_blocks_run_whole() -> None:
    every = [b for page in PAGES for b in sh_blocks(page)]
    whole = [b for b in every if not b.mark]
    assert len(every) >= 20 and len(whole) * 2 > len(every), (len(whole), len(every))
    assert sum(b.mark == "not run" for b in every) * 5 <= len(every)


def _folder(base: Path) -> tuple[Path, dict[str, str]]:
    folder = base / "page"
    for name in ("bots", "examples"):
        shutil.copytree(ROOT / name, folder / name,
                        ignore=shutil.ignore_patterns("__pycache__", "*.npz"))
    env = {k: v for k, v in os.environ.items() if k != "CANASTA_TOKEN"}
    home = base / "home"
    env.update(HOME=str(home), XDG_DATA_HOME=str(home / "data"), XDG_STATE_HOME=str(home / "state"),
               XDG_CONFIG_HOME=str(home / "config"),
               PATH=os.pathsep.join([str(BIN), env.get("PATH", os.defpath)]))
    return folder, env


def _canasta_lines(body: str) -> list[list[str]]:
    """The ``canasta`` command lines of a block, each split into words, comments dropped."""
    lines = re.sub(r"\\\n\s*", " ", body).splitlines()
    return [shlex.split(line, comments=True) for line in lines if line.startswith("canasta ")]


@pytest.mark.parametrize("page", [p for p in PAGES if sh_blocks(p)], ids=lambda p: p.name)
def test_the_commands_shown_run(page: Path, tmp_path: Path) -> None:
    folder, env = _folder(tmp_path)
    for block in sh_blocks(page):
        if block.mark == "not run":
            continue
        if block.mark == "run with --help":
            runs = [[CANASTA, *words[1:], "--help"] for words in _canasta_lines(block.body)]
            assert runs, f"{page.name}: a block run with --help shows no canasta line"
        else:
            assert re.search(r"(^|[|;&] *)canasta ", block.body, re.MULTILINE), (
                f"{page.name}: a ```sh block that runs no canasta command")
            runs = [["bash", "-c", "set -euo pipefail\n" + block.body]]
        for argv in runs:
            done = subprocess.run(argv, cwd=folder, env=env, capture_output=True, text=True,
                                  timeout=300, check=False)
            shown = argv[-1] if argv[0] == "bash" else shlex.join(argv)
            assert done.returncode == 0, (
                f"{page.name}: exit {done.returncode} from\n{shown}\n--- stdout (end)\n"
                f"{done.stdout[-3000:]}\n--- stderr (end)\n{done.stderr[-3000:]}")
