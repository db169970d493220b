"""Validation of protocol messages against the normative JSON Schemas in protocol/schema."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

SCHEMA_DIR = Path(__file__).resolve().parent.parent / "protocol" / "schema"


@cache
def validator(kind: str) -> Draft202012Validator:
    schema = json.loads((SCHEMA_DIR / f"{kind}.json").read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def errors(msg: dict[str, Any], kind: str | None = None) -> list[str]:
    kind = kind or str(msg.get("type"))
    if not (SCHEMA_DIR / f"{kind}.json").exists():
        return [f"no schema for message type {kind!r}"]
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
            for e in validator(kind).iter_errors(msg)]
