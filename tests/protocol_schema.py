"""Validation of protocol messages against the normative JSON Schemas in protocol/schema.

The published schemas are the ones bots validate against: they accept fields and event types
they do not list ("ignore what you don't know").  The referee's own output is held to the
strict variant made here: every object closed to undocumented fields (except those marked
``"x-open"``, such as the rule options) and no event type outside the list.
"""

from __future__ import annotations

import copy
import json
from functools import cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

SCHEMA_DIR = Path(__file__).resolve().parent.parent / "protocol" / "schema"


def strict_variant(schema: Any) -> Any:
    node = copy.deepcopy(schema)

    def close(n: Any) -> None:
        if isinstance(n, dict):
            if "properties" in n and n.get("type") == "object" and not n.get("x-open") \
                    and n.get("additionalProperties", True) is True:
                n["additionalProperties"] = False
            if n.get("x-closed"):
                n["additionalProperties"] = False
            for key in ("oneOf", "anyOf"):
                if key in n:
                    n[key] = [b for b in n[key] if not (isinstance(b, dict) and b.get("x-unknown"))]
            for v in n.values():
                close(v)
        elif isinstance(n, list):
            for v in n:
                close(v)

    close(node)
    return node


@cache
def validator(kind: str, strict: bool = True) -> Draft202012Validator:
    schema = json.loads((SCHEMA_DIR / f"{kind}.json").read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(strict_variant(schema) if strict else schema)


def errors(msg: dict[str, Any], kind: str | None = None, strict: bool = True) -> list[str]:
    kind = kind or str(msg.get("type"))
    if not (SCHEMA_DIR / f"{kind}.json").exists():
        return [f"no schema for message type {kind!r}"]
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
            for e in validator(kind, strict).iter_errors(msg)]
