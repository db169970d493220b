"""Where the files that come with canasta are: the example bots and bot kits, the protocol
specification and its JSON Schemas, the rules (docs/RULES.md).

An installed copy carries them inside the package (``canasta_cli/_data/``, copied there by the
build, see setup.py); a checkout of the project has them at its top (``bots/``, ``protocol/``,
``docs/``).
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent.parent  # canasta_cli/


def data_root() -> Path:
    """The folder that holds ``bots/``, ``protocol/`` and ``docs/``: the package's own copy if
    it has one (an installed copy), else the checkout the package sits in."""
    shipped = _PACKAGE / "_data"
    return shipped if (shipped / "bots").is_dir() else _PACKAGE.parent


def bots_dir() -> Path:
    """The example bots and the bot kits (canasta_kit.py, canasta_kit.js)."""
    return data_root() / "bots"


def protocol_dir() -> Path:
    """The protocol specification (README.md), examples and transcripts."""
    return data_root() / "protocol"


def schema_dir() -> Path:
    """The JSON Schemas of the protocol messages, one per message type."""
    return protocol_dir() / "schema"


def rules_file() -> Path:
    """The rules as this program plays them, every disputed point with its option (RULES.md)."""
    return data_root() / "docs" / "RULES.md"
