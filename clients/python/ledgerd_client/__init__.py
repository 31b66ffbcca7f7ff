"""ledgerd_client: verify ledgerd's proofs and checkpoints, and walk its paged lists, in pure
Python (docs/client-python.md). Held to the TypeScript verifier by shared vectors."""

from .client import LedgerdClient, LedgerdError, ProofRefused, next_page_of
from .comet import TrustedValidator, trusted_validators_of
from .light import Trust, TrustRoot, trust_root_of
from .note import CheckpointRefused, KeptCheckpoint, verify_checkpoint
from .txid import compute_tx_id, matches_tx_id
from .verify import Verdict, VerifyOptions, verify_consistency_proof, verify_transaction_proof

__all__ = [
    "CheckpointRefused",
    "KeptCheckpoint",
    "LedgerdClient",
    "LedgerdError",
    "ProofRefused",
    "Trust",
    "TrustRoot",
    "TrustedValidator",
    "Verdict",
    "VerifyOptions",
    "compute_tx_id",
    "matches_tx_id",
    "next_page_of",
    "trust_root_of",
    "trusted_validators_of",
    "verify_checkpoint",
    "verify_consistency_proof",
    "verify_transaction_proof",
]
