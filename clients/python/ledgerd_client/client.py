"""A small client of ledgerd's HTTP API (docs/client-python.md) with urllib: the paged lists
walked by their `Link: rel="next"` headers, transactions fetched with their proof verified, and
the node's checkpoint verified by a pinned key. It reads; to build, sign and post transactions,
use bigchaindb_driver beside it."""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Dict, Iterator, Optional, Sequence, Tuple, Union

from .note import KeptCheckpoint, verify_checkpoint
from .verify import VerifyOptions, check_transaction

PAGE_SIZE_DEFAULT = 100
# Most characters of a non-JSON error answer kept as the error's message (a proxy's page).
MESSAGE_CHARS_MAX = 200
TIMEOUT_SECONDS_DEFAULT = 30.0
_NEXT = re.compile(r'<([^>]*)>\s*;\s*rel="?next"?')

Query = Dict[str, Union[str, int, bool, None]]


class LedgerdError(Exception):
    """The node answered with an error: its status and the API's JSON `message`."""

    def __init__(self, message: str, status: int, body: str) -> None:
        super().__init__(message)
        self.status = status
        self.body = body


class ProofRefused(Exception):
    """get_transaction(verify=...) found the proof wrong, or of another transaction."""

    def __init__(self, tx_id: str, reason: str) -> None:
        super().__init__("the proof of " + tx_id + " is refused: " + reason)
        self.transaction_id = tx_id
        self.reason = reason


def next_page_of(link: Optional[str]) -> Optional[str]:
    """The next page's path from a `Link` header, or None (docs/http-api.md, Paging)."""
    match = _NEXT.search(link) if link is not None else None
    return match.group(1) if match else None


def _error_message(status: int, body: str) -> str:
    try:
        parsed = json.loads(body)
        message = parsed.get("message") if isinstance(parsed, dict) else None
        if isinstance(message, str):
            return message
    except ValueError:
        pass  # Not the API's JSON (a proxy's page): the text itself says what happened.
    return body[:MESSAGE_CHARS_MAX] if body else "HTTP %d" % status


def _query_text(value: Union[str, int, bool]) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


class LedgerdClient:
    """`base_url`: the node's root, e.g. `http://127.0.0.1:9984`."""

    def __init__(self, base_url: str, timeout_seconds: float = TIMEOUT_SECONDS_DEFAULT) -> None:
        self.base = base_url.rstrip("/")
        self.timeout_seconds = timeout_seconds

    def _url(self, path: str, query: Optional[Query] = None) -> str:
        pairs = [(k, _query_text(v)) for k, v in (query or {}).items() if v is not None]
        return self.base + path + ("?" + urllib.parse.urlencode(pairs) if pairs else "")

    def _request(self, url: str) -> Tuple[str, Any]:
        request = urllib.request.Request(url, headers={"accept": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=self.timeout_seconds) as response:
                return response.read().decode("utf-8"), response.headers
        except urllib.error.HTTPError as error:
            body = error.read().decode("utf-8", "replace")
            raise LedgerdError(_error_message(error.code, body), error.code, body) from None

    def _json(self, path: str, query: Optional[Query] = None) -> Any:
        return json.loads(self._request(self._url(path, query))[0])

    def pages(
        self, path: str, query: Optional[Query] = None, page_size: int = PAGE_SIZE_DEFAULT
    ) -> Iterator[Any]:
        """Every item of a paged list, a page at a time, following the `Link` of each page."""
        url: Optional[str] = self._url(path, dict(query or {}, limit=page_size))
        while url is not None:
            body, headers = self._request(url)
            yield from json.loads(body)
            following = next_page_of(headers.get("link"))
            url = None if following is None else urllib.parse.urljoin(self.base + "/", following)

    def outputs(
        self, public_key: str, spent: Optional[bool] = None, page_size: int = PAGE_SIZE_DEFAULT
    ) -> Iterator[Any]:
        """The outputs a key is named in (only spent or unspent ones with `spent`)."""
        return self.pages("/api/v1/outputs", {"public_key": public_key, "spent": spent}, page_size)

    def transactions(
        self, asset_id: str, operation: Optional[str] = None, page_size: int = PAGE_SIZE_DEFAULT
    ) -> Iterator[Any]:
        """An asset's transactions, in commit order."""
        return self.pages("/api/v1/transactions", {"asset_id": asset_id, "operation": operation}, page_size)

    def balances(
        self, public_key: str, asset_id: Optional[str] = None, page_size: int = PAGE_SIZE_DEFAULT
    ) -> Iterator[Any]:
        """What a key alone may spend, per asset (amounts are decimal strings)."""
        return self.pages("/api/v1/balances", {"public_key": public_key, "asset_id": asset_id}, page_size)

    def assets(self, search: str, page_size: int = PAGE_SIZE_DEFAULT) -> Iterator[Any]:
        return self.pages("/api/v1/assets", {"search": search}, page_size)

    def metadata(self, search: str, page_size: int = PAGE_SIZE_DEFAULT) -> Iterator[Any]:
        return self.pages("/api/v1/metadata", {"search": search}, page_size)

    def get_validators(self) -> Any:
        """The validators (`trusted_validators_of` reads them)."""
        return self._json("/api/v1/validators")

    def get_validator_changes(
        self, from_height: Optional[int] = None, to_height: Optional[int] = None
    ) -> Any:
        """The signed headers at the validator set's changes between two heights (its
        `light_blocks` are Trust's `validator_changes`)."""
        return self._json(
            "/api/v1/proofs/validator-changes", {"from_height": from_height, "to_height": to_height}
        )

    def get_proof(self, tx_id: str, height: Optional[int] = None) -> Any:
        """The proof that a transaction is in the ledger, reaching the app hash after `height`."""
        return self._json(
            "/api/v1/proofs/transactions/" + urllib.parse.quote(tx_id, safe=""), {"height": height}
        )

    def get_consistency(self, old: int, new: Optional[int] = None) -> Any:
        """The proof that the history at height `new` (default the last) extends the one at `old`."""
        return self._json("/api/v1/proofs/consistency", {"from": old, "to": new})

    def get_transaction(
        self,
        tx_id: str,
        verify: Union[bool, VerifyOptions] = False,
        checkpoint: Optional[KeptCheckpoint] = None,
    ) -> Any:
        """A committed transaction; with `verify` (or a kept `checkpoint`), only once its body
        hashes to `tx_id` and its proof checks, else ProofRefused. With `checkpoint` the proof
        is asked for the checkpoint's height and must reach its app hash."""
        tx = self._json("/api/v1/transactions/" + urllib.parse.quote(tx_id, safe=""))
        if verify is False and checkpoint is None:
            return tx
        proof = self.get_proof(tx_id, None if checkpoint is None else checkpoint.height)
        wrong = check_transaction(
            tx, proof, tx_id, verify if isinstance(verify, VerifyOptions) else VerifyOptions()
        )
        if isinstance(wrong, str):
            raise ProofRefused(tx_id, wrong)
        verdict = wrong
        if checkpoint is not None and (
            verdict.height != checkpoint.height or verdict.app_hash != checkpoint.app_hash
        ):
            raise ProofRefused(
                tx_id,
                "the proof reaches app hash %s after height %d, not the checkpoint's %s after %d"
                % (verdict.app_hash, verdict.height, checkpoint.app_hash, checkpoint.height),
            )
        return tx

    def get_checkpoint_key(self) -> str:
        """The checkpoints' verifier key (signed-note form); pin it rather than trust each answer."""
        return self._request(self._url("/api/v1/checkpoint/key"))[0].strip()

    def get_checkpoint(self, size: Optional[int] = None) -> Tuple[str, Optional[str]]:
        """The signed checkpoint note and its height header (the latest, or of a past size)."""
        body, headers = self._request(self._url("/api/v1/checkpoint", {"size": size}))
        return body, headers.get("ledgerd-checkpoint-height")

    def verified_checkpoint(
        self, verifier_key: str, witnesses: Sequence[str] = (), quorum: Optional[int] = None
    ) -> KeptCheckpoint:
        """The latest checkpoint once signed by `verifier_key` (and cosigned by the witnesses'
        quorum); else CheckpointRefused."""
        note, height = self.get_checkpoint()
        return verify_checkpoint(note, verifier_key, height, witnesses, quorum)
