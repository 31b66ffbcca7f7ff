"""A transaction's id recomputed from its body, as ledgerd checks it (docs/compatibility.md #7):
the hex SHA3-256 of the canonical JSON of the transaction with `"id": null`, signatures
included, in BigchainDB's form (python-rapidjson: keys sorted by code point, other control
characters escaped as `\\u001F`) or, failing that, the JavaScript driver's (json-stable-stringify:
keys sorted by UTF-16 code units, `\\u001f`, numbers as JavaScript prints them)."""

from __future__ import annotations

import decimal
import hashlib
from typing import Any, Callable, Dict

_SHORT = {0x08: "\\b", 0x09: "\\t", 0x0A: "\\n", 0x0C: "\\f", 0x0D: "\\r", 0x22: '\\"', 0x5C: "\\\\"}


class Unwritable(Exception):
    """BigchainDB's form cannot write a lone surrogate (it is no UTF-8)."""


def _quote(text: str, js: bool) -> str:
    out = []
    for ch in text:
        c = ord(ch)
        if c in _SHORT:
            out.append(_SHORT[c])
        elif c < 0x20 or 0xD800 <= c <= 0xDFFF:
            if not js and c >= 0xD800:
                raise Unwritable("a lone surrogate cannot be written as UTF-8")
            out.append("\\u%04x" % c if js else "\\u%04X" % c)
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _js_number(value: float) -> str:
    """Number.prototype.toString (ECMA-262 Number::toString) of a finite double."""
    if value == 0:
        return "0"
    sign, digits, exponent = decimal.Decimal(repr(float(value))).normalize().as_tuple()
    s = "".join(str(d) for d in digits)
    k = len(s)
    n = k + int(exponent)
    prefix = "-" if sign else ""
    if k <= n <= 21:
        return prefix + s + "0" * (n - k)
    if 0 < n <= 21:
        return prefix + s[:n] + "." + s[n:]
    if -6 < n <= 0:
        return prefix + "0." + "0" * -n + s
    mantissa = s if k == 1 else s[0] + "." + s[1:]
    return prefix + mantissa + "e" + ("+" if n - 1 >= 0 else "-") + str(abs(n - 1))


def _number(value: Any, js: bool) -> str:
    if isinstance(value, int) and (not js or abs(value) < 2**53):
        return str(value)
    return _js_number(value) if js else repr(value)


def _utf16(key: str) -> bytes:
    return key.encode("utf-16-be", "surrogatepass")


def serialize(value: Any, js: bool = False) -> str:
    """The canonical JSON text of a JSON value, in BigchainDB's form or (js) the driver's."""
    if isinstance(value, str):
        return _quote(value, js)
    if value is None or isinstance(value, bool):
        return "null" if value is None else "true" if value else "false"
    if isinstance(value, (int, float)):
        return _number(value, js)
    if isinstance(value, list):
        return "[" + ",".join(serialize(v, js) for v in value) + "]"
    order: Callable[[str], Any] = _utf16 if js else (lambda key: key)
    keys = sorted(value, key=order)
    return "{" + ",".join(_quote(k, js) + ":" + serialize(value[k], js) for k in keys) + "}"


def compute_tx_id(tx: Dict[str, Any], js: bool = False) -> str:
    body = dict(tx)
    body["id"] = None
    text = serialize(body, js)
    return hashlib.sha3_256(text.encode("utf-8", "surrogatepass")).hexdigest()


def matches_tx_id(tx: Any) -> bool:
    """Whether the transaction's body hashes to its `id` in either canonical form."""
    if not isinstance(tx, dict) or not isinstance(tx.get("id"), str):
        return False
    try:
        if compute_tx_id(tx) == tx["id"]:
            return True
    except Unwritable:
        pass
    return compute_tx_id(tx, js=True) == str(tx["id"])
