"""CometBFT's signed headers, checked without CometBFT (docs/proofs.md "Signed headers"), as
ledgerd's TypeScript verifier checks them: the header's hash (`Header.Hash`, v0.38: an RFC 6962
tree over the protobuf encoding of each field) and the commit's precommit signatures over the
canonical vote (`VoteSignBytes`), counted against the validator set the caller trusts."""

from __future__ import annotations

import calendar
import hashlib
import re
from typing import (
    Any,
    Callable,
    Dict,
    List,
    Mapping,
    NamedTuple,
    Optional,
    Sequence,
    Set,
    Tuple,
    TypeVar,
    Union,
)

from . import ed25519
from .encoding import field, from_base64, from_hex, js_string, utf8
from .merkle import leaf_hash, root_of


class TrustedValidator(NamedTuple):
    """A validator the client trusts: its Ed25519 public key (32 bytes) and voting power."""

    public_key: bytes
    power: int


class Malformed(Exception):
    """A header or commit field of the wrong form: a reason, not a crash."""


# Protobuf, as much as the header and vote need: proto3 leaves zero values out.
def _varint(n: int) -> bytes:
    n %= 2**64
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def _tag(number: int, wire: int) -> bytes:
    return _varint((number << 3) | wire)


def _uint(number: int, n: int) -> bytes:
    return b"" if n == 0 else _tag(number, 0) + _varint(n)


def _bytes(number: int, data: bytes) -> bytes:
    return b"" if len(data) == 0 else _tag(number, 2) + _varint(len(data)) + data


def _message(number: int, data: bytes) -> bytes:
    return _tag(number, 2) + _varint(len(data)) + data


def _fixed64(number: int, n: int) -> bytes:
    return b"" if n == 0 else _tag(number, 1) + (n % 2**64).to_bytes(8, "little")


def _hex(value: Any, what: str) -> bytes:
    data = from_hex(value) if isinstance(value, str) else None
    if data is None:
        raise Malformed(what + " is not hex")
    return data


_INTEGER = re.compile(r"-?\d{1,19}\Z", re.ASCII)


def _integer(value: Any, what: str) -> int:
    text = js_string(value)
    if not _INTEGER.match(text):
        raise Malformed(what + " is not an integer")
    return int(text)


_TIME = re.compile(r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?Z\Z", re.ASCII)


def time_nanos(value: Any) -> Optional[int]:
    """An RFC 3339 UTC time, as CometBFT writes it, in nanoseconds since 1970; None otherwise."""
    m = _TIME.match(value) if isinstance(value, str) else None
    if m is None:
        return None
    y, mo, d, h, mi, s = (int(g) for g in m.groups()[:6])
    try:
        seconds = calendar.timegm((y, mo, d, h, mi, s, 0, 0, 0))
    except (ValueError, OverflowError):
        return None
    return seconds * 1_000_000_000 + int((m.group(7) or "").ljust(9, "0"))


def _timestamp(value: Any) -> bytes:
    ns = time_nanos(value)
    if ns is None:
        raise Malformed("time " + js_string(value) + " is not RFC 3339 UTC")
    nanos = ns % 1_000_000_000
    return _uint(1, (ns - nanos) // 1_000_000_000) + _uint(2, nanos)


def _part_set(block_id: Any, what: str) -> bytes:
    parts = block_id["parts"]
    return _uint(1, _integer(parts["total"], what + " total")) + _bytes(
        2, _hex(parts["hash"], what + " hash")
    )


def header_hash(h: Mapping[str, Any]) -> bytes:
    """`Header.Hash()`: the RFC 6962 root over the header's fields, each protobuf-encoded."""
    version = h["version"]
    last = h["last_block_id"]
    fields = [
        _uint(1, _integer(version["block"], "version.block"))
        + _uint(2, _integer(version.get("app", "0"), "version.app")),
        _bytes(1, utf8(h["chain_id"])),
        _uint(1, _integer(h["height"], "height")),
        _timestamp(h["time"]),
        # The part set header is a non-nullable field (gogoproto): written even when empty.
        _bytes(1, _hex(last["hash"], "last_block_id hash"))
        + _message(2, _part_set(last, "last_block_id parts")),
    ]
    for name in (
        "last_commit_hash",
        "data_hash",
        "validators_hash",
        "next_validators_hash",
        "consensus_hash",
        "app_hash",
        "last_results_hash",
        "evidence_hash",
        "proposer_address",
    ):
        fields.append(_bytes(1, _hex(h[name], name)))
    return root_of([leaf_hash(f) for f in fields])


def precommit_sign_bytes(chain_id: str, commit: Mapping[str, Any], time: Any) -> bytes:
    """The bytes a validator signs for its precommit: a length-delimited CanonicalVote."""
    block_id = commit["block_id"]
    canonical_block_id = _bytes(1, _hex(block_id["hash"], "block_id hash")) + _message(
        2, _part_set(block_id, "parts")
    )
    vote = (
        _uint(1, 2)
        + _fixed64(2, _integer(commit["height"], "commit height"))
        + _fixed64(3, _integer(commit["round"], "commit round"))
        + _message(4, canonical_block_id)
        + _message(5, _timestamp(time))
        + _bytes(6, utf8(chain_id))
    )
    return _varint(len(vote)) + vote


def address_of(public_key: bytes) -> str:
    """A validator's address: the first 20 bytes of SHA-256 of its public key, lowercase hex."""
    return hashlib.sha256(public_key).digest()[:20].hex()


_SIGNATURE = re.compile(r"[A-Za-z0-9+/]{86}==\Z")


T = TypeVar("T")


def _guarded(check: Callable[[], T]) -> Union[T, str]:
    try:
        return check()
    except Malformed as error:
        return str(error)
    except (KeyError, TypeError, AttributeError) as error:
        # A field missing or of another type than CometBFT writes.
        return "the signed header is malformed: " + repr(error)


def commit_signers(
    signed: Mapping[str, Any], keys: Dict[str, bytes], enough: Optional[Callable[[str], bool]] = None
) -> Union[Set[str], str]:
    """The addresses of the validators among `keys` whose precommit for the header's block is
    in the commit and verifies; or why the commit counts for nothing. Nil and absent votes, and
    validators not in `keys`, are skipped. With `enough`, told each signer as it is counted, the
    rest are not verified once it says so (as CometBFT's `VerifyCommitLight` stops)."""
    return _guarded(lambda: _commit_signers(signed, keys, enough))


def _commit_signers(
    signed: Mapping[str, Any], keys: Dict[str, bytes], enough: Optional[Callable[[str], bool]]
) -> Union[Set[str], str]:
    header, commit = signed["header"], signed["commit"]
    if commit["height"] != header["height"]:
        return "the commit is not of the header's height"
    if header_hash(header) != _hex(commit["block_id"]["hash"], "commit block_id hash"):
        return "the commit signs another header than this one (its hash differs)"
    signers: Set[str] = set()
    for sig in commit["signatures"]:
        if sig["block_id_flag"] != 2 or sig["signature"] is None:
            continue  # absent or nil: no vote for this block
        address: str = sig["validator_address"].lower()
        key = keys.get(address)
        if key is None or address in signers:
            continue
        text = sig["signature"]
        signature = from_base64(text) if isinstance(text, str) and _SIGNATURE.match(text) else None
        if signature is None:
            return "the signature of validator " + address + " is not 64 bytes of base64"
        message = precommit_sign_bytes(header["chain_id"], commit, sig["timestamp"])
        if not ed25519.verify(signature, message, key):
            return "the signature of validator " + address + " does not verify"
        signers.add(address)
        if enough is not None and enough(address):
            break
    return signers


def keys_by_address(*sets: Sequence[TrustedValidator]) -> Dict[str, bytes]:
    return {address_of(v.public_key): v.public_key for validators in sets for v in validators}


def signed_power(validators: Sequence[TrustedValidator], signers: Set[str]) -> Tuple[int, int]:
    """The power of the validators of the set among `signers`, and the set's whole power."""
    total = sum(v.power for v in validators)
    return sum(v.power for v in validators if address_of(v.public_key) in signers), total


def validator_set_hash(validators: Sequence[TrustedValidator]) -> bytes:
    """CometBFT's `ValidatorSet.Hash()`: the RFC 6962 root over each validator's key and power,
    in the set's order (power descending, then address ascending)."""
    ordered = sorted(validators, key=lambda v: (-v.power, address_of(v.public_key)))
    return root_of([leaf_hash(_message(1, _bytes(1, v.public_key)) + _uint(2, v.power)) for v in ordered])


def check_header_claims(
    header: Any, height: int, app_hash: str, chain_id: Optional[str] = None
) -> Optional[str]:
    """None when the header is of `height` (and chain) and carries `app_hash`; else why not."""

    def check() -> Optional[str]:
        if _integer(header["height"], "header height") != height:
            return "the header is of height " + js_string(header["height"]) + ", not " + str(height)
        claimed: str = header["app_hash"]
        if claimed.lower() != app_hash.lower():
            return "the header's app hash " + claimed + " is not the proof's " + app_hash
        if chain_id is not None and header["chain_id"] != chain_id:
            return "the header is of chain " + js_string(header["chain_id"]) + ", not " + chain_id
        return None

    return _guarded(check)


def check_signed_header(
    signed: Any,
    height: int,
    app_hash: str,
    validators: Sequence[TrustedValidator],
    chain_id: Optional[str] = None,
) -> Optional[str]:
    """None when `signed` is a header of `height` carrying `app_hash` whose commit holds
    signatures of more than two thirds of the trusted validators' power; otherwise why not."""
    claims = check_header_claims(field(signed, "header"), height, app_hash, chain_id)
    if claims is not None:
        return claims
    signers = commit_signers(signed, keys_by_address(validators))
    if isinstance(signers, str):
        return signers
    power, total = signed_power(validators, signers)
    if power * 3 <= total * 2:
        return (
            "validators of " + str(power) + " of " + str(total) + " power signed; more than two thirds must"
        )
    return None


def trusted_validators_of(source: Any) -> List[TrustedValidator]:
    """The validators to trust, from what a client has at hand: the list GET /api/v1/validators
    answers (`pub_key.data` hex), a CometBFT genesis or its `validators` (`pub_key.value`
    base64), or CometBFT RPC's /validators (`result.validators`). Raises ValueError otherwise."""
    listed = (
        source
        if isinstance(source, list)
        else field(field(source, "result"), "validators") or field(source, "validators")
    )
    if not isinstance(listed, list) or len(listed) == 0:
        raise ValueError(
            "no validator list: give GET /api/v1/validators's answer, a genesis, or CometBFT's /validators"
        )
    out = []
    for i, entry in enumerate(listed):
        data, value = field(field(entry, "pub_key"), "data"), field(field(entry, "pub_key"), "value")
        key = (
            from_hex(data)
            if isinstance(data, str)
            else from_base64(value) if isinstance(value, str) else None
        )
        power = field(entry, "power")
        power = field(entry, "voting_power") if power is None else power
        if key is None or len(key) != 32:
            raise ValueError("validator %d: pub_key is not a 32-byte Ed25519 key" % i)
        if (
            isinstance(power, bool)
            or not isinstance(power, (int, str))
            or not re.match(r"[0-9]+\Z", str(power))
        ):
            raise ValueError("validator %d: power is not a whole number" % i)
        out.append(TrustedValidator(key, int(power)))
    return out
