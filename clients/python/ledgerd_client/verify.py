"""The verifier of ledgerd's proofs (docs/proofs.md), a port of the TypeScript `ledgerd/verify`:
the same checks in the same order, with the same reasons (the shared vectors hold the two to
each other). Given a proof as GET /api/v1/proofs/... answers it, it recomputes the roots and the
app hash from the hashes in the proof and, when the caller gives the validators it trusts,
checks that CometBFT's validators signed that app hash."""

from __future__ import annotations

from typing import Any, List, NamedTuple, Optional, Sequence, Union

from .comet import TrustedValidator, check_signed_header
from .encoding import field, from_hex, is_count, js_json, js_string
from .txid import matches_tx_id
from .light import Trust, followed_signature
from .merkle import Hash, app_hash_v1, block_leaf, inclusion_root, transaction_leaf, verify_consistency

PROOF_VERSION = 1


class Verdict(NamedTuple):
    """`ok` with the height and app hash the proof reaches; or not `ok`, with the reason."""

    ok: bool
    reason: str = ""
    height: int = 0
    app_hash: str = ""
    signed: bool = False


class VerifyOptions(NamedTuple):
    """`validators`: the set the client trusts (of the signed header's height); given, the proof
    must carry a header signed by more than two thirds of their power. Absent, the proof is only
    checked to reach its own app hash (compare that with one you trust). `chain_id`: the chain
    the signed header must be of. `trust`, instead of `validators`: a root of trust (a genesis,
    `trust_root_of`) and the light blocks at the set's changes since, followed to the header."""

    validators: Optional[Sequence[TrustedValidator]] = None
    chain_id: Optional[str] = None
    trust: Optional[Trust] = None


def _js_field(value: Any, name: str) -> str:
    """`String(value?.[name])`: "undefined" where there is no such field."""
    return js_string(value[name]) if isinstance(value, dict) and name in value else "undefined"


def _no(reason: str) -> Verdict:
    return Verdict(False, reason)


def _hashes(values: Any, what: str) -> Union[List[Hash], str]:
    if not isinstance(values, list):
        return what + " is not a list"
    out = []
    for value in values:
        data = from_hex(value) if isinstance(value, str) and len(value) == 64 else None
        if data is None:
            return what + " holds " + js_json(value) + ", not a 64-digit hex hash"
        out.append(data)
    return out


def _signed_verdict(signed: Any, height: int, app_hash: str, options: VerifyOptions) -> Verdict:
    """The verdict once the paths reached `app_hash`: the signature's, if one was asked for."""
    if options.validators is None and options.trust is None:
        return Verdict(True, height=height, app_hash=app_hash)
    if signed is None:
        return _no("the proof carries no signed header, and validators were given to check one against")
    # The app hash after block h is in the header of h + 1.
    if options.trust is not None:
        wrong = followed_signature(signed, height + 1, app_hash, options.trust)
    else:
        wrong = check_signed_header(signed, height + 1, app_hash, options.validators or [], options.chain_id)
    return _no(wrong) if wrong is not None else Verdict(True, height=height, app_hash=app_hash, signed=True)


def verify_transaction_proof(
    proof: Any, options: VerifyOptions = VerifyOptions(), tx_id: Optional[str] = None
) -> Verdict:
    """Whether `proof` shows that transaction `tx_id` (when given, else the proof's own) is in
    the ledger."""
    version = field(proof, "version")
    if isinstance(version, bool) or version != PROOF_VERSION:
        return _no(
            "proof version " + _js_field(proof, "version") + "; this verifier reads " + str(PROOF_VERSION)
        )
    if tx_id is not None and proof.get("transaction_id") != tx_id:
        return _no("the proof is of " + _js_field(proof, "transaction_id") + ", not " + tx_id)
    if not isinstance(proof.get("transaction_id"), str):
        return _no("transaction_id is not text")
    block, history = proof.get("block"), proof.get("history")
    if not (
        is_count(field(block, "height"))
        and block["height"] >= 1
        and is_count(block.get("index"))
        and is_count(block.get("size"))
    ):
        return _no("block height, index or size is not a count")
    if not (
        is_count(field(history, "index"))
        and is_count(history.get("size"))
        and is_count(proof.get("height"))
        and isinstance(proof.get("app_hash"), str)
    ):
        return _no("history index or size, height or app_hash is missing")
    if proof["height"] < block["height"]:
        return _no(
            "the app hash after height "
            + js_string(proof["height"])
            + " cannot hold block "
            + js_string(block["height"])
        )
    block_path = _hashes(block.get("path"), "block.path")
    if isinstance(block_path, str):
        return _no(block_path)
    history_path = _hashes(history.get("path"), "history.path")
    if isinstance(history_path, str):
        return _no(history_path)
    block_root = inclusion_root(
        transaction_leaf(proof["transaction_id"]), int(block["index"]), int(block["size"]), block_path
    )
    if block_root is None:
        return _no("the block path does not fit its index and size")
    leaf = block_leaf(int(block["height"]), int(block["size"]), block_root)
    history_root = inclusion_root(leaf, int(history["index"]), int(history["size"]), history_path)
    if history_root is None:
        return _no("the history path does not fit its index and size")
    app_hash = app_hash_v1(int(history["size"]), history_root)
    if app_hash != proof["app_hash"].lower():
        return _no("the proof reaches app hash " + app_hash + ", not the " + proof["app_hash"] + " it claims")
    return _signed_verdict(proof.get("signed_header"), int(proof["height"]), app_hash, options)


def _point(p: Any, what: str) -> Union[Hash, str]:
    if not (
        is_count(field(p, "height"))
        and is_count(p.get("size"))
        and isinstance(p.get("app_hash"), str)
        and isinstance(p.get("root"), str)
    ):
        return what + " lacks height, size, root or app_hash"
    root = from_hex(p["root"]) if len(p["root"]) == 64 else None
    if root is None:
        return what + ".root is not a 64-digit hex hash"
    if app_hash_v1(int(p["size"]), root) != p["app_hash"].lower():
        return what + ": size and root do not give its app hash"
    return root


def verify_consistency_proof(proof: Any, options: VerifyOptions = VerifyOptions()) -> Verdict:
    """Whether `proof` shows that the history at `to` extends the one at `from`, nothing rewritten."""
    version = field(proof, "version")
    if isinstance(version, bool) or version != PROOF_VERSION:
        return _no(
            "proof version " + _js_field(proof, "version") + "; this verifier reads " + str(PROOF_VERSION)
        )
    old_root = _point(proof.get("from"), "from")
    if isinstance(old_root, str):
        return _no(old_root)
    new_root = _point(proof.get("to"), "to")
    if isinstance(new_root, str):
        return _no(new_root)
    old, new = proof["from"], proof["to"]
    if old["height"] > new["height"] or old["size"] > new["size"]:
        return _no("from is after to")
    path = _hashes(proof.get("path"), "path")
    if isinstance(path, str):
        return _no(path)
    # An empty history is a prefix of every history.
    consistent = (
        len(path) == 0
        if old["size"] == 0
        else verify_consistency(int(old["size"]), int(new["size"]), old_root, new_root, path)
    )
    if not consistent:
        return _no(
            "the history of "
            + js_string(new["size"])
            + " blocks does not extend the one of "
            + js_string(old["size"])
        )
    first = _signed_verdict(old.get("signed_header"), int(old["height"]), old["app_hash"].lower(), options)
    if not first.ok:
        return _no("from: " + first.reason)
    last = _signed_verdict(new.get("signed_header"), int(new["height"]), new["app_hash"].lower(), options)
    return last if last.ok else _no("to: " + last.reason)


def check_transaction(
    tx: Any, proof: Any, tx_id: str, options: VerifyOptions = VerifyOptions()
) -> Union[Verdict, str]:
    """The checks of get_transaction(tx_id, verify=...) on the node's two answers: the
    transaction is the one asked for, its proof holds, and its body hashes to its id (which the
    proof commits to). The proof's verdict, or why the answers are refused."""
    if field(tx, "id") != tx_id:
        return "the node answered transaction " + (
            js_string(tx["id"]) if isinstance(tx, dict) and "id" in tx else "undefined"
        )
    verdict = verify_transaction_proof(proof, options, tx_id)
    if not verdict.ok:
        return verdict.reason
    if not matches_tx_id(tx):
        return "the transaction's body does not hash to its id"
    return verdict
