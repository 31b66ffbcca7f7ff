"""Signed notes and checkpoints (docs/transparency.md, after C2SP signed-note, tlog-checkpoint
and tlog-cosignature), read as ledgerd's TypeScript code reads them. A note is a text ending in
a newline, a blank line, then one line per signature, `— <key name> base64(key ID || sig)`. The
key ID is SHA-256(name || "\\n" || type || public key)[:4], type 0x01 for the node's Ed25519
key, 0x04 for a witness's timestamped cosignature. A checkpoint is the text of a note signed by
the node's checkpoint key: origin, tree size and base64 root, one line each."""

from __future__ import annotations

import hashlib
import re
from typing import List, NamedTuple, Optional, Sequence, Union

from . import ed25519
from .encoding import SAFE_INTEGER_MAX, from_base64, to_base64, utf8
from .merkle import app_hash_v1

ED25519_TYPE = 0x01
COSIGNATURE_TYPE = 0x04
# The most signature lines a note may carry (as Go's x/mod note): a verifier's work grows with them.
NOTE_SIGNATURES_MAX = 100
_KEY_ID_BYTES = 4
# JavaScript's `\s` (Unicode white space and line terminators).
_JS_SPACE = "\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff"
_NOT_KEY_NAME = re.compile("[" + _JS_SPACE + "+\\u0000-\\u001f\\u007f\\u0085]")
_CONTROL = re.compile("[\\u0000-\\u0009\\u000b-\\u001f]")
_SIGNATURE_LINE = re.compile("\u2014 ([^" + _JS_SPACE + "]+) ([A-Za-z0-9+/=]+)\\Z")
_SIZE = re.compile(r"(0|[1-9][0-9]{0,15})\Z")


class NoteKey(NamedTuple):
    name: str
    public_key: bytes


class NoteSignature(NamedTuple):
    name: str
    key_id: bytes
    signature: bytes


class SplitNote(NamedTuple):
    body: str
    signatures: List[NoteSignature]


class Checkpoint(NamedTuple):
    """A verified checkpoint: the history's size and root, and the app hash they give."""

    origin: str
    size: int
    root: bytes
    app_hash: str


def is_key_name(name: str) -> bool:
    return len(name) > 0 and _NOT_KEY_NAME.search(name) is None


def note_key_id(key: NoteKey, key_type: int = ED25519_TYPE) -> bytes:
    return hashlib.sha256(utf8(key.name + "\n") + bytes([key_type]) + key.public_key).digest()[:_KEY_ID_BYTES]


def parse_verifier_key(vkey: str, key_type: int = ED25519_TYPE) -> Optional[NoteKey]:
    """`<name>+<hex key ID>+base64(type || public key)` read back; None when it is not an
    Ed25519 verifier key of `key_type` whose ID matches."""
    first = vkey.find("+")
    second = vkey.find("+", first + 1) if first >= 0 else -1
    if first < 0 or second < 0:
        return None
    name, id_hex, key_text = vkey[:first], vkey[first + 1 : second], vkey[second + 1 :]
    if not is_key_name(name) or not re.match(r"[0-9a-f]{8}\Z", id_hex):
        return None
    material = from_base64(key_text)
    if material is None or len(material) != 33 or material[0] != key_type:
        return None
    key = NoteKey(name, material[1:])
    return key if note_key_id(key, key_type).hex() == id_hex else None


def split_note(note: str) -> Optional[SplitNote]:
    """A note split into its text (with its final newline) and signatures; None when malformed
    or carrying more than NOTE_SIGNATURES_MAX signatures."""
    if not note.endswith("\n") or _CONTROL.search(note):
        return None
    # The text ends at the last blank line; the signature lines follow it.
    split = note.rfind("\n\n")
    if split < 0:
        return None
    lines = note[split + 2 : -1].split("\n")
    if len(lines) > NOTE_SIGNATURES_MAX:
        return None
    signatures = []
    for line in lines:
        match = _SIGNATURE_LINE.match(line)
        data = from_base64(match.group(2)) if match else None
        if match is None or data is None or len(data) < _KEY_ID_BYTES:
            return None
        signatures.append(NoteSignature(match.group(1), data[:_KEY_ID_BYTES], data[_KEY_ID_BYTES:]))
    return SplitNote(note[: split + 1], signatures) if signatures else None


def open_note(note: str, key: NoteKey) -> Optional[str]:
    """The note's text when it carries a valid signature by `key`; None when it carries none,
    or one by that key (same name and ID) that does not verify. Other signatures are ignored."""
    split = split_note(note)
    if split is None:
        return None
    key_id = note_key_id(key)
    mine = [s for s in split.signatures if s.name == key.name and s.key_id == key_id]
    message = utf8(split.body)
    if not mine or not all(
        len(s.signature) == 64 and ed25519.verify(s.signature, message, key.public_key) for s in mine
    ):
        return None
    return split.body


def parse_checkpoint_body(body: str) -> Optional[Checkpoint]:
    """A checkpoint's text read back (extension lines ignored); None when malformed."""
    lines = body.split("\n")
    if len(lines) < 4 or lines[-1] != "":
        return None
    origin, size_text, root_text = lines[0], lines[1], lines[2]
    if origin == "" or not _SIZE.match(size_text) or int(size_text) > SAFE_INTEGER_MAX:
        return None
    root = from_base64(root_text)
    if root is None or len(root) != 32:
        return None
    size = int(size_text)
    return Checkpoint(origin, size, root, app_hash_v1(size, root))


def verify_cosignature(key: NoteKey, body: str, signature: bytes) -> bool:
    """Whether `signature` (a note signature's bytes after the key ID: timestamp u64 BE, then
    Ed25519) cosigns `body` by the witness `key` (C2SP tlog-cosignature)."""
    if len(signature) != 8 + 64:
        return False
    timestamp = int.from_bytes(signature[:8], "big")
    if timestamp == 0 or timestamp > SAFE_INTEGER_MAX:
        return False
    message = utf8("cosignature/v1\ntime %d\n" % timestamp + body)
    return ed25519.verify(signature[8:], message, key.public_key)


def cosigners(note: str, witnesses: Sequence[NoteKey]) -> int:
    """How many of `witnesses` cosigned the note (as `ledgerd audit` counts them)."""
    split = split_note(note)
    if split is None:
        return 0
    return sum(
        1
        for w in witnesses
        if any(s.name == w.name and verify_cosignature(w, split.body, s.signature) for s in split.signatures)
    )


class CheckpointRefused(Exception):
    """The checkpoint is not signed by the key given, is no checkpoint, or lacks its quorum."""

    def __init__(self, reason: str) -> None:
        super().__init__("the checkpoint is refused: " + reason)
        self.reason = reason


class KeptCheckpoint(NamedTuple):
    """A checkpoint verified by the pinned key, and the height after which the ledger's app hash
    (`app_hash`) commits to its size and root."""

    origin: str
    size: int
    root: str
    height: int
    app_hash: str


def _height_of(height: Union[str, int, None]) -> Optional[int]:
    """The checkpoint's height header as a safe integer; None when absent or not one."""
    if isinstance(height, str):
        height = int(height.strip()) if re.match(r"\s*[+-]?[0-9]+\s*\Z", height) else None
    if isinstance(height, bool) or not isinstance(height, int) or abs(height) > SAFE_INTEGER_MAX:
        return None
    return height


def verify_checkpoint(
    note: str,
    verifier_key: str,
    height: Union[str, int, None],
    witnesses: Sequence[str] = (),
    quorum: Optional[int] = None,
) -> KeptCheckpoint:
    """The checkpoint `note` (as GET /api/v1/checkpoint answers it, `height` from its
    Ledgerd-Checkpoint-Height header) once signed by `verifier_key` and, with `witnesses`
    (cosignature verifier keys), cosigned by `quorum` of them (all by default). Else raises
    CheckpointRefused, with the reason ledgerd's TypeScript client and auditor give."""
    key = parse_verifier_key(verifier_key)
    if key is None:
        raise CheckpointRefused(verifier_key + " is not an Ed25519 verifier key")
    body = open_note(note, key)
    if body is None:
        raise CheckpointRefused("it carries no valid signature by " + key.name)
    checkpoint = parse_checkpoint_body(body)
    if checkpoint is None or checkpoint.origin != key.name:
        raise CheckpointRefused("the note signed by " + key.name + " is not a checkpoint of that origin")
    height_number = _height_of(height)
    if height_number is None:
        raise CheckpointRefused("the node gave no height for it")
    witness_keys = []
    for vkey in witnesses:
        witness = parse_verifier_key(vkey.strip(), COSIGNATURE_TYPE)
        if witness is None:
            raise ValueError(vkey + " is not an Ed25519 cosignature verifier key")
        witness_keys.append(witness)
    needed = len(witness_keys) if quorum is None else quorum
    cosigned = cosigners(note, witness_keys)
    if cosigned < needed:
        raise CheckpointRefused(
            "%d of the %d witnesses cosigned the checkpoint of size %d; the quorum is %d"
            % (cosigned, len(witness_keys), checkpoint.size, needed)
        )
    return KeptCheckpoint(
        checkpoint.origin, checkpoint.size, to_base64(checkpoint.root), height_number, checkpoint.app_hash
    )
