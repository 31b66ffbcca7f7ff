"""Cases made by BigchainDB's own Python rules, for pythonRules.test.ts to check ledgerd against.

BigchainDB 2.x reads a posted body with the standard `json` module (Flask) and hashes
`rapidjson.dumps(d, skipkeys=False, ensure_ascii=False, sort_keys=True)` of it
(`common/utils.py serialize`). This script makes random values shaped like asset data and
metadata, and full v2.0 transactions signed as the Python driver and server do it, and prints
one JSON object per line (ASCII only):

  {"kind": "meta", "rapidjson": "<version>", ...}
  {"kind": "value", "posted_b64": ..., "canonical_b64": ... | null, "error": null | "<class>"}
  {"kind": "tx", "posted_b64": ..., "id": ..., "digests": ["<hex>", ...]}

`posted_b64` is the UTF-8 body a client would post; `canonical_b64` is the UTF-8 rapidjson
output for `json.loads(posted)`, or null with `error` when rapidjson cannot write it.

Usage: pythonRules.py --seed N --values N --txs N --keys path/to/keys.json
"""

import argparse
import base64
import hashlib
import json
import math
import random
import struct
import sys

import rapidjson
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat


def serialize(value):
    """BigchainDB `common/utils.py serialize`."""
    return rapidjson.dumps(value, skipkeys=False, ensure_ascii=False, sort_keys=True)


class Lexeme:
    """A number written with a chosen lexeme (`1E5`, `-0`, `2.50`), as another client might."""

    def __init__(self, text):
        self.text = text


def post_dumps(value, ensure_ascii):
    """`json.dumps(value)` with Python's default separators, honouring Lexeme numbers."""
    if isinstance(value, Lexeme):
        return value.text
    if isinstance(value, dict):
        items = (
            json.dumps(k, ensure_ascii=ensure_ascii) + ": " + post_dumps(v, ensure_ascii)
            for k, v in value.items()
        )
        return "{" + ", ".join(items) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(post_dumps(v, ensure_ascii) for v in value) + "]"
    return json.dumps(value, ensure_ascii=ensure_ascii)


# Characters chosen to hit every escape and sort rule: short escapes, other controls (with and
# without hex letters), quote, backslash, slash, DEL, U+2028/9, Latin-1, BMP above the
# surrogates (U+E000..U+FFFF sorts differently against astral by code unit), and astral.
SPECIAL_CHARS = (
    [chr(c) for c in range(0x20)]
    + ['"', "\\", "/", "\x7f", "\u2028", "\u2029", "\u00e9", "\u00ff", "\u0100", "\u07ff", "\u0800"]
    + ["\ue000", "\uf8ff", "\ufb01", "\uff5a", "\ufffd", "\uffff", "\u4e2d", "\u0301"]
    + ["\U00010000", "\U0001f511", "\U0001f600", "\U0010ffff", "\U00020000"]
)
KEY_WORDS = [
    "data", "id", "a", "b", "A", "Z", "_", "__proto__", "constructor", "toString",
    "hasOwnProperty", "0", "1", "10", "2", "-1", "01", "4294967295", "4294967294", "ｚ", "🔑",
    "key\x00", "key\x00a", "key\x00b", "key", "language", "k\ue000", "k\U00010000",
]


def random_string(rng, max_len):
    n = rng.randint(0, max_len)
    out = []
    for _ in range(n):
        r = rng.random()
        if r < 0.55:
            out.append(chr(rng.randint(0x20, 0x7E)))
        elif r < 0.85:
            out.append(rng.choice(SPECIAL_CHARS))
        else:
            c = rng.randint(0x80, 0x10FFFF)
            while 0xD800 <= c <= 0xDFFF:
                c = rng.randint(0x80, 0x10FFFF)
            out.append(chr(c))
    return "".join(out)


def random_key(rng):
    r = rng.random()
    if r < 0.35:
        return rng.choice(KEY_WORDS)
    if r < 0.5:
        # Same prefix, then a character from one of the ranges whose orders disagree.
        return "p" + rng.choice(["\uff5a", "\U0001f511", "\ue000", "\U00010000", "z", "\u00e9"])
    return random_string(rng, 8)


SPECIAL_FLOATS = [
    0.0, -0.0, 1.0, -1.0, 0.5, 0.1, 1 / 3, 1e16, 1e15, 9999999999999998.0, 1e17, 1e22, 1e21,
    1e-7, 1e-5, 0.0001, 0.001, 1.5e300, 5e-324, 2.2250738585072014e-308, 1.7976931348623157e308,
    123456789.0, 123456789012345678.0, 2.0 ** 53, 2.0 ** 63, 100.0, 1e100, -1e-100,
]
SPECIAL_INTS = [
    0, 1, -1, 2 ** 53 - 1, 2 ** 53, 2 ** 53 + 1, -(2 ** 53) - 1, 2 ** 63 - 1, 2 ** 63, 2 ** 64,
    -(2 ** 63), -(2 ** 64) - 1, 10 ** 30, -(10 ** 30), 999999999999999, 1000000000000000,
]
# Lexemes no json.dumps writes, but any client may post: Python reads them with float()/int().
SPECIAL_LEXEMES = [
    "-0", "0.0", "-0.0", "1E5", "1e+5", "1.0e-0", "2.50", "1.000000000000000000001", "1e-400",
    "-1e-400", "0e0", "123456789012345678901234567890", "-9007199254740993", "9007199254740992",
    "1E16", "1.5E300", "0.00001", "12.34e-10", "100e-2", "4.9e-324", "2.4703282292062328e-324",
]


def random_float(rng):
    r = rng.random()
    if r < 0.3:
        return rng.choice(SPECIAL_FLOATS)
    if r < 0.6:
        value = struct.unpack("<d", rng.getrandbits(64).to_bytes(8, "little"))[0]
        return 0.25 if math.isnan(value) or math.isinf(value) else value
    digits = rng.randint(1, 17)
    return round(rng.uniform(-1, 1) * 10 ** rng.randint(-30, 30), digits)


def random_int(rng):
    r = rng.random()
    if r < 0.4:
        return rng.choice(SPECIAL_INTS)
    if r < 0.7:
        return rng.randint(-1000, 1000)
    return rng.randint(-(2 ** 80), 2 ** 80)


def random_scalar(rng, lexemes):
    r = rng.random()
    if r < 0.35:
        return random_string(rng, 12)
    if r < 0.55:
        return random_float(rng)
    if r < 0.75:
        return random_int(rng)
    if r < 0.8 and lexemes:
        return Lexeme(rng.choice(SPECIAL_LEXEMES))
    return rng.choice([True, False, None])


def random_value(rng, depth, lexemes):
    r = rng.random()
    if depth < 4 and r < 0.3:
        # At most 16 keys: python-rapidjson's std::sort is then an insertion sort (stable),
        # so ties between keys that agree up to a NUL keep dict order, as ledgerd does.
        return {random_key(rng): random_value(rng, depth + 1, lexemes) for _ in range(rng.randint(0, 7))}
    if depth < 4 and r < 0.45:
        return [random_value(rng, depth + 1, lexemes) for _ in range(rng.randint(0, 5))]
    return random_scalar(rng, lexemes)


def random_object(rng, lexemes):
    return {random_key(rng): random_value(rng, 1, lexemes) for _ in range(rng.randint(1, 8))}


def b64(text):
    return base64.b64encode(text.encode("utf-8", "surrogatepass")).decode("ascii")


def value_case(rng):
    value = random_object(rng, lexemes=True)
    if rng.random() < 0.03:
        # A lone surrogate (posted as a \u escape): rapidjson cannot write it.
        value[random_key(rng)] = "x" + chr(rng.randint(0xD800, 0xDFFF)) + "y"
        ensure_ascii = True
    else:
        ensure_ascii = rng.random() < 0.8
    posted = post_dumps(value, ensure_ascii)
    # What BigchainDB does with a body: the standard json module reads it, rapidjson writes it.
    try:
        canonical, error = b64(serialize(json.loads(posted))), None
    except UnicodeEncodeError as exc:
        canonical, error = None, type(exc).__name__
    return {"kind": "value", "posted_b64": b64(posted), "canonical_b64": canonical, "error": error}


# --- Transactions, built as the Python driver builds them and checked as the server checks them.

B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"


def b58encode(raw):
    n = int.from_bytes(raw, "big")
    out = ""
    while n:
        n, rem = divmod(n, 58)
        out = B58[rem] + out
    return "1" * (len(raw) - len(raw.lstrip(b"\0"))) + out


def b64url(raw):
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


class Key:
    def __init__(self, seed_hex):
        self.private = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(seed_hex))
        self.public_raw = self.private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
        self.public = b58encode(self.public_raw)


def condition_uri(public_raw):
    """Spec §2.4: sha-256 of the DER fingerprint `30 22 80 20 <pub32>`."""
    fingerprint = hashlib.sha256(bytes([0x30, 0x22, 0x80, 0x20]) + public_raw).digest()
    return "ni:///sha-256;" + b64url(fingerprint) + "?fpt=ed25519-sha-256&cost=131072"


def output(key, amount):
    details = {"type": "ed25519-sha-256", "public_key": key.public}
    return {
        "public_keys": [key.public],
        "condition": {"details": details, "uri": condition_uri(key.public_raw)},
        "amount": str(amount),
    }


def sign(tx, signers):
    """`Transaction.sign` then the id: docs/bigchaindb-behaviour.md §2.1 and §2.2."""
    message = dict(tx, id=None, inputs=[dict(i, fulfillment=None) for i in tx["inputs"]])
    serialized = serialize(message)
    digests = []
    for input_, key in zip(tx["inputs"], signers):
        digest = hashlib.sha3_256(serialized.encode())
        if input_["fulfills"]:
            fulfills = input_["fulfills"]
            digest.update("{}{}".format(fulfills["transaction_id"], fulfills["output_index"]).encode())
        digest = digest.digest()
        signature = key.private.sign(digest)
        der = bytes([0xA4, 0x64, 0x80, 0x20]) + key.public_raw + bytes([0x81, 0x40]) + signature
        input_["fulfillment"] = b64url(der)
        digests.append(digest.hex())
    tx["id"] = None
    tx["id"] = hashlib.sha3_256(serialize(tx).encode()).hexdigest()
    return digests


def create_tx(rng, keys):
    issuer, owner = rng.choice(keys), rng.choice(keys)
    amounts = [rng.randint(1, 9 * 10 ** 18) for _ in range(rng.randint(1, 3))]
    tx = {
        "inputs": [{"owners_before": [issuer.public], "fulfills": None, "fulfillment": None}],
        "outputs": [output(owner, amount) for amount in amounts],
        "operation": "CREATE",
        "metadata": random_object(rng, lexemes=False) if rng.random() < 0.8 else None,
        "asset": {"data": random_object(rng, lexemes=False) if rng.random() < 0.9 else None},
        "version": "2.0",
        "id": None,
    }
    return tx, [issuer], owner


def transfer_tx(rng, keys, spent, owner):
    """Spends output indexes of `spent`, so the digest carries `fulfills` (docs/bigchaindb-behaviour.md §2.2)."""
    count = min(len(spent["outputs"]), rng.randint(1, 2))
    recipient = rng.choice(keys)
    tx = {
        "inputs": [
            {
                "owners_before": [owner.public],
                "fulfills": {"transaction_id": spent["id"], "output_index": index},
                "fulfillment": None,
            }
            for index in range(count)
        ],
        "outputs": [output(recipient, 1)],
        "operation": "TRANSFER",
        "metadata": random_object(rng, lexemes=False) if rng.random() < 0.5 else None,
        "asset": {"id": spent["id"]},
        "version": "2.0",
        "id": None,
    }
    return tx, [owner] * count


def tx_cases(rng, keys, count):
    previous = None
    for n in range(count):
        if previous is not None and n % 4 == 3:
            tx, signers = transfer_tx(rng, keys, *previous)
        else:
            tx, signers, owner = create_tx(rng, keys)
        digests = sign(tx, signers)
        if tx["operation"] == "CREATE":
            previous = (tx, owner)
        # The Python driver posts `json.dumps(tx)` (requests' json=), keys in its own order.
        posted = json.dumps(tx)
        yield {"kind": "tx", "posted_b64": b64(posted), "id": tx["id"], "digests": digests}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--values", type=int, default=2000)
    parser.add_argument("--txs", type=int, default=2000)
    parser.add_argument("--keys", required=True)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    with open(args.keys) as f:
        keys = [Key(k["seed_hex"]) for k in json.load(f)["keys"].values()]
    out = sys.stdout
    meta = {"kind": "meta", "rapidjson": rapidjson.__version__, "python": sys.version.split()[0]}
    out.write(json.dumps(meta) + "\n")
    for _ in range(args.values):
        out.write(json.dumps(value_case(rng)) + "\n")
    for case in tx_cases(rng, keys, args.txs):
        out.write(json.dumps(case) + "\n")


if __name__ == "__main__":
    main()
