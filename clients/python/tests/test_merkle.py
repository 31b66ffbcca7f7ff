"""RFC 9162 inclusion and consistency verification, against paths a direct reading of the RFC's
PATH and PROOF definitions makes, for every tree of up to 17 leaves."""

import hashlib
import unittest
from typing import List

from ledgerd_client.merkle import inclusion_root, leaf_hash, node_hash, root_of, verify_consistency


def _split(n: int) -> int:
    k = 1
    while k * 2 < n:
        k *= 2
    return k


def path(m: int, leaves: List[bytes]) -> List[bytes]:
    """RFC 9162 §2.1.3.1 PATH(m, D[n])."""
    if len(leaves) <= 1:
        return []
    k = _split(len(leaves))
    if m < k:
        return path(m, leaves[:k]) + [root_of(leaves[k:])]
    return path(m - k, leaves[k:]) + [root_of(leaves[:k])]


def subproof(m: int, leaves: List[bytes], whole: bool) -> List[bytes]:
    """RFC 9162 §2.1.4.1 SUBPROOF(m, D[n], b)."""
    n = len(leaves)
    if m == n:
        return [] if whole else [root_of(leaves)]
    k = _split(n)
    if m <= k:
        return subproof(m, leaves[:k], whole) + [root_of(leaves[k:])]
    return subproof(m - k, leaves[k:], False) + [root_of(leaves[:k])]


LEAVES = [leaf_hash(bytes([i])) for i in range(17)]


class MerkleTest(unittest.TestCase):
    def test_empty_and_small_roots(self) -> None:
        self.assertEqual(root_of([]), hashlib.sha256(b"").digest())
        self.assertEqual(root_of(LEAVES[:3]), node_hash(node_hash(LEAVES[0], LEAVES[1]), LEAVES[2]))

    def test_every_inclusion_path_reaches_the_root_and_no_other_index_does(self) -> None:
        for size in range(1, 18):
            tree = LEAVES[:size]
            for index in range(size):
                proof = path(index, tree)
                self.assertEqual(inclusion_root(tree[index], index, size, proof), root_of(tree))
                other = (index + 1) % size
                if other != index:
                    self.assertNotEqual(inclusion_root(tree[index], other, size, proof), root_of(tree))
                self.assertIsNone(inclusion_root(tree[index], index, size, proof + [LEAVES[0]]))
            self.assertIsNone(inclusion_root(tree[0], size, size, []))

    def test_every_consistency_proof_verifies_and_a_changed_one_does_not(self) -> None:
        for new in range(1, 18):
            for old in range(1, new + 1):
                proof = subproof(old, LEAVES[:new], True)
                old_root, new_root = root_of(LEAVES[:old]), root_of(LEAVES[:new])
                self.assertTrue(verify_consistency(old, new, old_root, new_root, proof), (old, new))
                self.assertFalse(verify_consistency(old, new, old_root, root_of(LEAVES[1 : new + 1]), proof))
                if proof:
                    self.assertFalse(verify_consistency(old, new, old_root, new_root, proof[:-1]))
        self.assertFalse(verify_consistency(0, 3, b"", root_of(LEAVES[:3]), []))


if __name__ == "__main__":
    unittest.main()
