"""CometBFT's light client, as ledgerd's TypeScript verifier runs it (docs/proofs.md "Across
validator changes"): from a root of trust (a genesis) through the signed headers at the
validator set's changes (GET /api/v1/proofs/validator-changes) to the header a proof carries.
Each step is CometBFT v0.38's `VerifyAdjacent` / `VerifyNonAdjacent`: within the trust period,
later and of the chain, the set hashing to the header's `validators_hash` with more than two
thirds of its power signing, and either the successor the trusted header named or, skipping,
more than a third of the trusted set's power signing too."""

from __future__ import annotations

import re
from typing import Any, Callable, List, NamedTuple, Optional, Sequence, Set, Union

from .comet import (
    TrustedValidator,
    check_header_claims,
    commit_signers,
    header_hash,
    keys_by_address,
    signed_power,
    time_nanos,
    trusted_validators_of,
    validator_set_hash,
)
from .encoding import SAFE_INTEGER_MAX, field, js_string

# A header may be this far ahead of `now` (CometBFT's light client default `max_clock_drift`).
CLOCK_DRIFT_MS_MAX = 10_000
_NS_PER_MS = 1_000_000


class TrustRoot(NamedTuple):
    """The chain, and the set trusted to sign `height` (a genesis: its initial height)."""

    chain_id: str
    height: int
    validators: Sequence[TrustedValidator]
    time: Optional[str] = None


class Trust(NamedTuple):
    """A root of trust and the light blocks at the set's changes since (`light_blocks` of
    GET /api/v1/proofs/validator-changes); with a trust period (ms), the time now (ms)."""

    root: TrustRoot
    validator_changes: Sequence[Any]
    trust_period_ms: Optional[int] = None
    now_ms: Optional[int] = None


class TrustedState(NamedTuple):
    chain_id: str
    height: int
    time_ns: Optional[int]
    validators: Sequence[TrustedValidator]
    validators_hash: str
    next_validators_hash: str
    header_hash: Optional[str]
    changes: int


def trust_root_of(genesis: Any) -> TrustRoot:
    """The root of trust a CometBFT genesis gives. Raises ValueError when it is not a genesis."""
    if not isinstance(field(genesis, "chain_id"), str):
        raise ValueError("not a genesis: it has no chain_id")
    height = _js_number(genesis.get("initial_height", 1))
    if height is None or height < 1:
        raise ValueError("not a genesis: initial_height " + js_string(genesis.get("initial_height")))
    time = genesis.get("genesis_time")
    return TrustRoot(
        genesis["chain_id"], height, trusted_validators_of(genesis), time if isinstance(time, str) else None
    )


def _js_number(value: Any) -> Optional[int]:
    """`Number(value)` when it is a safe integer; None otherwise."""
    if isinstance(value, str):
        text = value.strip()
        match = re.match(r"[+-]?\d+(\.0*)?\Z", text)
        value = 0 if text == "" else int(float(text)) if match else None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or abs(value) > SAFE_INTEGER_MAX:
        return None
    return value


def trusted_state_of(root: TrustRoot, time_ns: Optional[int]) -> TrustedState:
    """The state a root stands for: as if a header before its height named its set as the next."""
    digest = validator_set_hash(root.validators).hex().upper()
    return TrustedState(root.chain_id, root.height - 1, time_ns, root.validators, digest, digest, None, 0)


def _time_refusal(state: TrustedState, header_ns: int, height: int, trust: Trust) -> Optional[str]:
    now = None if trust.now_ms is None else trust.now_ms * _NS_PER_MS
    if trust.trust_period_ms is not None:
        if now is None:
            return "a trust period needs the time now to judge it at"
        if state.time_ns is None:
            return "a trust period needs the trusted root's time"
        if state.time_ns + trust.trust_period_ms * _NS_PER_MS <= now:
            return (
                "the trusted header of height %d is older than the trust period (%d ms): trust a later one"
                % (state.height, trust.trust_period_ms)
            )
    # A root's first block may carry the root's time (a genesis's first block carries its time).
    earliest = (
        None if state.time_ns is None else state.time_ns if state.header_hash is None else state.time_ns + 1
    )
    if earliest is not None and header_ns < earliest:
        return "the header of height %d is not after the trusted header's time" % height
    if now is not None and header_ns > now + CLOCK_DRIFT_MS_MAX * _NS_PER_MS:
        return "the header of height %d is from the future" % height
    return None


def _enough_for(
    own: Sequence[TrustedValidator], trusted: Sequence[TrustedValidator], adjacent: bool
) -> Callable[[str], bool]:
    """Whether the signers told so far hold the power a step needs, so the rest need no check."""
    signers: Set[str] = set()

    def enough(address: str) -> bool:
        signers.add(address)
        own_signed, own_total = signed_power(own, signers)
        trusted_signed, trusted_total = signed_power(trusted, signers)
        return own_signed * 3 > own_total * 2 and (adjacent or trusted_signed * 3 > trusted_total)

    return enough


def verify_light_block(
    state: TrustedState, signed: Any, validators: Sequence[TrustedValidator], trust: Trust
) -> Union[TrustedState, str]:
    """The state after trusting `signed`, whose set is `validators`; or why it cannot be trusted."""
    header = field(signed, "header")
    height = _js_number(field(header, "height"))
    if height is None:
        return "a header has no height"
    if header.get("chain_id") != state.chain_id:
        return "the header of height %d is of chain %s, not %s" % (
            height,
            js_string(header.get("chain_id")),
            state.chain_id,
        )
    if height <= state.height:
        return "the header of height %d is not after the trusted height %d" % (height, state.height)
    header_ns = time_nanos(header.get("time"))
    if header_ns is None:
        return "the header of height %d has no RFC 3339 time" % height
    late = _time_refusal(state, header_ns, height, trust)
    if late is not None:
        return late
    set_hash = validator_set_hash(validators).hex().upper()
    if set_hash != js_string(header.get("validators_hash")).upper():
        return "the validator set given for height %d hashes to %s, not the %s its header names" % (
            height,
            set_hash,
            js_string(header.get("validators_hash")),
        )
    adjacent = height == state.height + 1
    signers = commit_signers(
        signed,
        keys_by_address(validators, state.validators),
        _enough_for(validators, state.validators, adjacent),
    )
    if isinstance(signers, str):
        return "height %d: %s" % (height, signers)
    if adjacent:
        # Sequential: the trusted header named the set that signs this one.
        if set_hash != state.next_validators_hash:
            return (
                "the header of height %d is signed by set %s, not the successor %s the trusted header names"
                % (height, set_hash, state.next_validators_hash)
            )
    else:
        # Skipping: enough of the trusted set signed that one honest validator vouches for it.
        trusting, trusted_total = signed_power(state.validators, signers)
        if trusting * 3 <= trusted_total:
            return (
                "validators of %d of the trusted set's %d power signed the header of height %d; more than a third must"
                % (trusting, trusted_total, height)
            )
    own, own_total = signed_power(validators, signers)
    if own * 3 <= own_total * 2:
        return (
            "validators of %d of %d power signed the header of height %d; more than two thirds of its set must"
            % (own, own_total, height)
        )
    return TrustedState(
        state.chain_id,
        height,
        header_ns,
        validators,
        set_hash,
        js_string(header.get("next_validators_hash")).upper(),
        js_string(signed["commit"]["block_id"]["hash"]).upper(),
        state.changes + (0 if set_hash == state.validators_hash else 1),
    )


def follow_validator_changes(
    state: TrustedState, light_blocks: Any, up_to: int, trust: Trust
) -> Union[TrustedState, str]:
    """The state after following the light blocks up to height `up_to`, in height order; or why
    one of them cannot be trusted."""
    if not isinstance(light_blocks, list):
        return "the validator changes hold no list of light blocks"
    trusted = state
    for block in light_blocks:
        height = _js_number(field(field(field(block, "signed_header"), "header"), "height"))
        if height is None or not height <= up_to:
            break
        try:
            validators: List[TrustedValidator] = trusted_validators_of(block.get("validator_set"))
        except ValueError as error:
            return "the validator set of height %d: %s" % (height, error)
        following = verify_light_block(trusted, block["signed_header"], validators, trust)
        if isinstance(following, str):
            return following
        trusted = following
    return trusted


def followed_signature(signed: Any, height: int, app_hash: str, trust: Trust) -> Optional[str]:
    """None when the header carrying `app_hash` (of `height`) is trusted from `trust`; else why not."""
    root = trust.root
    claims = check_header_claims(field(signed, "header"), height, app_hash, root.chain_id)
    if claims is not None:
        return claims
    root_ns = None if root.time is None else time_nanos(root.time)
    if root.time is not None and root_ns is None:
        return "the root's time " + root.time + " is not RFC 3339 UTC"
    state = follow_validator_changes(trusted_state_of(root, root_ns), trust.validator_changes, height, trust)
    if isinstance(state, str):
        return state
    named = js_string(signed["header"].get("validators_hash")).upper()
    if height > state.height and named != state.validators_hash:
        return (
            "the header of height %d is signed by set %s; the validator changes given reach set %s (height %d): "
            "give the changes up to height %d"
        ) % (height, named, state.validators_hash, state.height, height)
    last = state if height == state.height else verify_light_block(state, signed, state.validators, trust)
    if isinstance(last, str):
        return last
    if header_hash(signed["header"]).hex().upper() != last.header_hash:
        return "the header of height %d is not the one the validator changes trust" % height
    return None
