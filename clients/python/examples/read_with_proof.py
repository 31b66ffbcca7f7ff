"""Reads what a key owns from a ledgerd node, each transaction only once its proof checks:
against the app hash it carries, then against the node's checkpoint, verified by the checkpoint
key given (pin it: a key fetched from the same node proves nothing). Prints one JSON document.

    python3 read_with_proof.py http://127.0.0.1:9984 <public key> <checkpoint verifier key>"""

import json
import sys

from ledgerd_client import LedgerdClient, verify_consistency_proof


def main(base_url: str, public_key: str, verifier_key: str) -> None:
    client = LedgerdClient(base_url)
    kept = client.verified_checkpoint(verifier_key)
    outputs = list(client.outputs(public_key, page_size=2))
    ids = sorted({output["transaction_id"] for output in outputs})
    # verify=True: the proof reaches the app hash it carries; checkpoint=: the one the key signed.
    verified = [client.get_transaction(tx_id, verify=True)["id"] for tx_id in ids]
    at_checkpoint = [client.get_transaction(tx_id, checkpoint=kept)["id"] for tx_id in ids]
    consistency = verify_consistency_proof(client.get_consistency(1, kept.height))
    print(
        json.dumps(
            {
                "checkpoint": {"size": kept.size, "height": kept.height, "app_hash": kept.app_hash},
                "outputs": outputs,
                "verified": verified,
                "at_checkpoint": at_checkpoint,
                "consistent": consistency.ok and consistency.app_hash == kept.app_hash,
            }
        )
    )


if __name__ == "__main__":
    main(*sys.argv[1:4])
