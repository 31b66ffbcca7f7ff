"""Hex, base64 and JavaScript's way of printing values, as ledgerd's TypeScript verifier reads
and writes them, so that both verifiers accept the same inputs and give the same reasons."""

from __future__ import annotations

import base64
import binascii
import json
import re
from typing import Any, Optional

_HEX = re.compile(r"[0-9a-fA-F]*\Z")
_B64 = re.compile(r"[A-Za-z0-9+/]*\Z")
_ASCII_SPACE = re.compile(r"[\t\n\f\r ]")
SAFE_INTEGER_MAX = 2**53 - 1


def from_hex(text: str) -> Optional[bytes]:
    """Hex to bytes; None when it is not an even run of hex digits."""
    if len(text) % 2 != 0 or not _HEX.match(text):
        return None
    return bytes.fromhex(text)


def from_base64(text: str) -> Optional[bytes]:
    """Base64 read as a browser's `atob` reads it (WHATWG forgiving-base64); None when it fails."""
    text = _ASCII_SPACE.sub("", text)
    if len(text) % 4 == 0:
        text = text[:-2] if text.endswith("==") else text[:-1] if text.endswith("=") else text
    if len(text) % 4 == 1 or not _B64.match(text):
        return None
    try:
        return base64.b64decode(text + "=" * (-len(text) % 4))
    except binascii.Error:
        return None


def to_base64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def js_string(value: Any) -> str:
    """`String(value)` of JavaScript, for the values a JSON document holds."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e21:
        return str(int(value))
    if isinstance(value, (dict, list)):
        return "[object Object]" if isinstance(value, dict) else ",".join(js_string(v) for v in value)
    return str(value)


def js_json(value: Any) -> str:
    """`JSON.stringify(value)` for a JSON value."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def is_count(value: Any) -> bool:
    """JavaScript's `Number.isSafeInteger(n) && n >= 0`."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    return float(value).is_integer() and 0 <= value <= SAFE_INTEGER_MAX


def field(value: Any, name: str) -> Any:
    """`value?.[name]`: None where `value` is no object or lacks the field."""
    return value.get(name) if isinstance(value, dict) else None


def utf8(text: str) -> bytes:
    """UTF-8 as JavaScript's TextEncoder writes it: a lone surrogate becomes U+FFFD."""
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace").encode("utf-8")
