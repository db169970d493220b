"""Writing a page that nothing in its data can break out of.

Text goes through ``esc``; data for the script goes in a ``<script type="application/json">``
through ``script_json``, which leaves no ``<``, ``>`` or ``&`` in it (so neither
``</script>`` nor ``<!--`` can end or change the element) and no U+2028/U+2029; the page's
Content-Security-Policy lets only its own inline script and style run (by their hashes) and
forbids every load from elsewhere, so even an escaping bug could not run injected script.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
from typing import Any

_JSON_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026",
                 "\u2028": "\\u2028", "\u2029": "\\u2029"}


def esc(text: object) -> str:
    """``text`` for HTML text or a quoted attribute value."""
    return html.escape(str(text), quote=True)


def script_json(obj: Any) -> str:
    """``obj`` as JSON safe inside a ``<script>`` element (see the module docstring)."""
    text = json.dumps(obj, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return "".join(_JSON_ESCAPES.get(ch, ch) for ch in text) if any(
        ch in text for ch in _JSON_ESCAPES) else text


def _digest(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def page(title: str, css: str, body: str, script: str = "",
         data: Any = None) -> str:
    """A whole HTML document: ``body`` is markup already escaped by the caller; ``css`` and
    ``script`` are the project's own; ``data`` is embedded as JSON with id ``data``."""
    scripts = "'none'" if not script else _digest(script)
    csp = (f"default-src 'none'; script-src {scripts}; style-src {_digest(css)};"
           " img-src data:; base-uri 'none'; form-action 'none'")
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{esc(csp)}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        '<meta name="referrer" content="no-referrer">',
        f"<title>{esc(title)}</title>",
        f"<style>{css}</style>",
        "</head>",
        "<body>",
        body,
    ]
    if data is not None:
        parts.append(f'<script type="application/json" id="data">{script_json(data)}</script>')
    if script:
        parts.append(f"<script>{script}</script>")
    parts += ["</body>", "</html>", ""]
    return "\n".join(parts)
