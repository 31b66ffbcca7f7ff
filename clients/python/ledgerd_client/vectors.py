"""Runs the shared verifier vectors (test/vectors/proofs/verifier-vectors.json): each case
through this package's verifier, printing one JSON line per case, `{"name", "ok", "reason"}`.
Exit status 1 when a verdict differs from the case's `expect` (ok and reason), 0 otherwise.

    python3 -m ledgerd_client.vectors test/vectors/proofs/verifier-vectors.json"""

from __future__ import annotations

import json
import sys
from typing import Any, Dict, List, Tuple

from .comet import trusted_validators_of
from .light import Trust, trust_root_of
from .note import CheckpointRefused, verify_checkpoint
from .verify import VerifyOptions, check_transaction, verify_consistency_proof, verify_transaction_proof


def _options(case: Dict[str, Any]) -> VerifyOptions:
    validators, trust = case.get("validators"), case.get("trust")
    return VerifyOptions(
        None if validators is None else trusted_validators_of(validators),
        case.get("chain_id"),
        (
            None
            if trust is None
            else Trust(
                trust_root_of(trust["genesis"]),
                trust["light_blocks"],
                trust.get("trust_period_ms"),
                trust.get("now_ms"),
            )
        ),
    )


def verdict_of(case: Dict[str, Any]) -> Tuple[bool, str]:
    """The verdict on one case: (accepted, the reason when refused)."""
    kind = case["kind"]
    if kind == "transaction_proof":
        verdict = verify_transaction_proof(case["proof"], _options(case), case.get("id"))
        return verdict.ok, verdict.reason
    if kind == "consistency_proof":
        verdict = verify_consistency_proof(case["proof"], _options(case))
        return verdict.ok, verdict.reason
    if kind == "transaction":
        checked = check_transaction(case["transaction"], case["proof"], case["id"], _options(case))
        return (False, checked) if isinstance(checked, str) else (True, "")
    if kind == "checkpoint":
        try:
            verify_checkpoint(
                case["note"], case["key"], case["height"], case.get("witnesses", []), case.get("quorum")
            )
            return True, ""
        except CheckpointRefused as refused:
            return False, refused.reason
    raise ValueError("unknown vector kind " + str(kind))


def main(argv: List[str]) -> int:
    if len(argv) != 1:
        print("usage: python3 -m ledgerd_client.vectors <vectors.json>", file=sys.stderr)
        return 2
    with open(argv[0], encoding="utf-8") as file:
        vectors = json.load(file)
    differ = 0
    for case in vectors["cases"]:
        ok, reason = verdict_of(case)
        expect = case["expect"]
        if ok != expect["ok"] or reason != expect.get("reason", ""):
            differ += 1
        print(json.dumps({"name": case["name"], "ok": ok, "reason": reason}, ensure_ascii=False))
    return 1 if differ > 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
