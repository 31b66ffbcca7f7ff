"""Merkle trees as RFC 9162 (Certificate Transparency 2.0) §2.1 defines them, and ledgerd's
commitment v1 (docs/proofs.md): leaf hashes SHA-256(0x00 || data), node hashes
SHA-256(0x01 || left || right); a transaction's leaf data is "T" || id, a block's "B" || height
(u64) || count (u32) || block root; the app hash is SHA-256("ledgerd/app-hash/v1" || size (u64)
|| history root), hex, and "" for an empty history."""

from __future__ import annotations

import hashlib
from typing import Callable, List, Optional, Sequence

from .encoding import SAFE_INTEGER_MAX, utf8

Hash = bytes


def leaf_hash(data: bytes) -> Hash:
    return hashlib.sha256(b"\x00" + data).digest()


def node_hash(left: Hash, right: Hash) -> Hash:
    return hashlib.sha256(b"\x01" + left + right).digest()


def root_of(leaves: Sequence[Hash]) -> Hash:
    """The root of a whole list of leaf hashes (RFC 9162 MTH)."""
    if len(leaves) == 0:
        return hashlib.sha256(b"").digest()
    if len(leaves) == 1:
        return leaves[0]
    k = 1
    while k * 2 < len(leaves):
        k *= 2
    return node_hash(root_of(leaves[:k]), root_of(leaves[k:]))


def _walk_up(
    fn: int, sn: int, proof: Sequence[Hash], left: Callable[[Hash], None], right: Callable[[Hash], None]
) -> bool:
    """The walk up the tree both verifications share (RFC 9162 §2.1.3.2, §2.1.4.2)."""
    for p in proof:
        if sn == 0:
            return False
        if fn % 2 == 1 or fn == sn:
            left(p)
            # A right edge node: climb to where it is a right child again.
            while fn % 2 == 0 and fn != 0:
                fn //= 2
                sn //= 2
        else:
            right(p)
        fn //= 2
        sn //= 2
    return sn == 0


def _is_index(n: int) -> bool:
    return 0 <= n <= SAFE_INTEGER_MAX


def inclusion_root(leaf: Hash, index: int, size: int, path: Sequence[Hash]) -> Optional[Hash]:
    """RFC 9162 §2.1.3.2: the root `path` leads to from `leaf` as leaf `index` of a tree of
    `size`; None when the path does not fit that index and size."""
    if not (_is_index(index) and _is_index(size) and index < size):
        return None
    r = [leaf]
    walked = _walk_up(
        index,
        size - 1,
        path,
        lambda p: r.__setitem__(0, node_hash(p, r[0])),
        lambda p: r.__setitem__(0, node_hash(r[0], p)),
    )
    return r[0] if walked else None


def verify_consistency(old: int, new: int, old_root: Hash, new_root: Hash, proof: Sequence[Hash]) -> bool:
    """RFC 9162 §2.1.4.2: whether `proof` shows the tree (new, new_root) extends (old, old_root)."""
    if not (_is_index(old) and _is_index(new) and 1 <= old <= new):
        return False
    if old == new:
        return len(proof) == 0 and old_root == new_root
    # A first tree that is a perfect, left-aligned subtree is its own first node.
    path: List[Hash] = [old_root, *proof] if old & (old - 1) == 0 else list(proof)
    if len(path) == 0:
        return False
    fn, sn = old - 1, new - 1
    while fn % 2 == 1:
        fn //= 2
        sn //= 2
    roots = [path[0], path[0]]

    def left(c: Hash) -> None:
        roots[0] = node_hash(c, roots[0])
        roots[1] = node_hash(c, roots[1])

    walked = _walk_up(fn, sn, path[1:], left, lambda c: roots.__setitem__(1, node_hash(roots[1], c)))
    return walked and roots[0] == old_root and roots[1] == new_root


def transaction_leaf(tx_id: str) -> Hash:
    return leaf_hash(utf8("T" + tx_id))


def block_leaf(height: int, count: int, root: Hash) -> Hash:
    return leaf_hash(b"B" + height.to_bytes(8, "big") + (count % 2**32).to_bytes(4, "big") + root)


def app_hash_v1(size: int, history_root: Hash) -> str:
    if size == 0:
        return ""
    return hashlib.sha256(b"ledgerd/app-hash/v1" + size.to_bytes(8, "big") + history_root).hexdigest()
