"""Ed25519 signature verification (RFC 8032 §5.1.7), pure Python, as ledgerd's TypeScript
verifier checks signatures (@noble/ed25519's default, ZIP-215 rules): the key and R may be
non-canonical encodings of points, S must be below the group order, and the check is the
cofactored one, [8][S]B = [8]R + [8][k]A. Verification only: no secret is ever handled here."""

from __future__ import annotations

import hashlib
from typing import Optional, Tuple

P = 2**255 - 19
L = 2**252 + 27742317777372353535851937790883648493
D = -121665 * pow(121666, P - 2, P) % P
SQRT_M1 = pow(2, (P - 1) // 4, P)

Point = Tuple[int, int, int, int]  # extended coordinates (X, Y, Z, T)

IDENTITY: Point = (0, 1, 1, 0)


def _add(a: Point, b: Point) -> Point:
    x1, y1, z1, t1 = a
    x2, y2, z2, t2 = b
    aa = (y1 - x1) * (y2 - x2) % P
    bb = (y1 + x1) * (y2 + x2) % P
    cc = 2 * t1 * t2 * D % P
    dd = 2 * z1 * z2 % P
    e, f, g, h = bb - aa, dd - cc, dd + cc, bb + aa
    return (e * f % P, g * h % P, f * g % P, e * h % P)


def _mul(n: int, point: Point) -> Point:
    out = IDENTITY
    while n > 0:
        if n & 1:
            out = _add(out, point)
        point = _add(point, point)
        n >>= 1
    return out


def _is_identity(point: Point) -> bool:
    x, y, z, _ = point
    return x % P == 0 and (y - z) % P == 0


def _decode(data: bytes) -> Optional[Point]:
    """A point from its 32 bytes; y up to 2^255 - 1 and x = 0 with the sign bit are accepted
    (ZIP-215); None when y is on no point."""
    if len(data) != 32:
        return None
    y = int.from_bytes(data, "little") & ((1 << 255) - 1)
    sign = data[31] >> 7
    y %= P
    u = (y * y - 1) % P
    v = (D * y * y + 1) % P
    x = u * pow(v, 3, P) * pow(u * pow(v, 7, P), (P - 5) // 8, P) % P
    if v * x * x % P == (-u) % P:
        x = x * SQRT_M1 % P
    elif v * x * x % P != u:
        return None
    if (x & 1) != sign:
        x = (-x) % P
    return (x, y, 1, x * y % P)


_BY = 4 * pow(5, P - 2, P) % P
BASE = _decode(_BY.to_bytes(32, "little"))
assert BASE is not None


def verify(signature: bytes, message: bytes, public_key: bytes) -> bool:
    """Whether `signature` (64 bytes) is `public_key`'s (32 bytes) signature of `message`."""
    if len(signature) != 64 or len(public_key) != 32:
        return False
    a = _decode(public_key)
    r = _decode(signature[:32])
    s = int.from_bytes(signature[32:], "little")
    if a is None or r is None or s >= L:
        return False
    k = int.from_bytes(hashlib.sha512(signature[:32] + public_key + message).digest(), "little") % L
    neg_r = ((-r[0]) % P, r[1], r[2], (-r[3]) % P)
    neg_ka = _mul(k, a)
    neg_ka = ((-neg_ka[0]) % P, neg_ka[1], neg_ka[2], (-neg_ka[3]) % P)
    assert BASE is not None
    check = _add(_add(_mul(s, BASE), neg_r), neg_ka)
    return _is_identity(_mul(8, check))
