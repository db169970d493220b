"""``bot ask`` reads its record or transcript as ``replay --verify`` reads a record: a regular
file only (a FIFO is refused at once, never read and waited on), a bounded size and line, JSON
nested a bounded depth; a crafted file is one line on stderr and exit 2, never a traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CANASTA = str(Path(sys.executable).parent / "canasta")
TEE = f"{sys.executable} {ROOT / 'tests' / 'bots' / 'tee.py'}"
QUICK = 60  # s: a hang guard; each of these takes a second or two


def whole_lines() -> dict[str, str]:
    """The environment as the test session has it (conftest.py's own data folders), without
    COLUMNS: errors on one line, as a script gets them."""
    return {k: v for k, v in os.environ.items() if k != "COLUMNS"}


HELLO = {"from": "referee", "msg": {"type": "hello", "protocol": "canasta/1", "seat": 0}}


def ask(path: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    start = time.monotonic()
    try:
        done = subprocess.run([CANASTA, "bot", "ask", TEE, str(path), "--decision", "1",
                               *extra], capture_output=True, text=True, timeout=QUICK,
                              check=False, env=whole_lines())
    except subprocess.TimeoutExpired:
        pytest.fail(f"bot ask hung on {path.name} for {QUICK} s")
    assert time.monotonic() - start < QUICK
    return done


def one_line(done: subprocess.CompletedProcess[str], *words: str) -> None:
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr and "RecursionError" not in done.stderr, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    for w in words:
        assert w in lines[0], done.stderr


@pytest.mark.parametrize("newline", [b"", b"\n"])
def test_a_deeply_nested_file_is_one_line(tmp_path: Path, newline: bytes) -> None:
    deep = tmp_path / "deep.jsonl"
    deep.write_bytes(b"[" * 3_000_000 + newline)
    one_line(ask(deep), "deep.jsonl")


def test_a_transcript_with_a_deeply_nested_line_is_one_line(tmp_path: Path) -> None:
    deep = tmp_path / "seat0.jsonl"
    deep.write_bytes(json.dumps(HELLO).encode() + b"\n" + b"[" * 3_000_000 + b"\n")
    one_line(ask(deep), "seat0.jsonl:2")


def test_a_fifo_is_refused_at_once(tmp_path: Path) -> None:
    fifo = tmp_path / "record.jsonl"
    os.mkfifo(fifo)
    one_line(ask(fifo), "record.jsonl", "FIFO")
    one_line(ask(fifo, "--alone"), "FIFO")


@pytest.mark.parametrize("time_field", ['"fast"', '[1]', '{"decision_ms": "x"}',
                                        '{"decision_ms": 1e999}'])
def test_a_transcript_with_a_bad_clock_is_one_line(tmp_path: Path, time_field: str) -> None:
    path = tmp_path / "seat0.jsonl"
    hello = json.dumps(HELLO).replace('"seat": 0', f'"seat": 0, "time": {time_field}')
    act = json.dumps({"from": "referee", "msg": {"type": "act", "game": 1, "id": 1}})
    start = json.dumps({"from": "referee", "msg": {"type": "game_start", "game": 1}})
    path.write_text(f"{hello}\n{start}\n{act}\n")
    one_line(ask(path), "hello")


@pytest.mark.parametrize("header", [
    '{"type":"header","rules":{"name":"classic"},"seats":["a","b","c","d"],"time":[1]}',
    '{"type":"header","rules":{"name":"classic"},"seats":["a","b","c","d"],"start":[1]}',
    '{"type":"header","rules":"classic","seats":5}',
])
def test_a_record_with_a_bad_header_is_one_line(tmp_path: Path, header: str) -> None:
    path = tmp_path / "game-0001.jsonl"
    path.write_text(header + '\n{"type":"move","seat":0,"move":"draw","by":"bot"}\n'
                    '{"type":"reveal","seed":1,"dealer":0,"decks":[]}\n')
    one_line(ask(path, "--alone"), "record")
