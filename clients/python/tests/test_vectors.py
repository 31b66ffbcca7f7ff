"""The shared vectors (test/vectors/proofs/verifier-vectors.json, recorded from ledgerd's
TypeScript verifier): each case gets the recorded verdict and reason here too."""

import json
import os
import unittest

from ledgerd_client.vectors import verdict_of

VECTORS = os.path.join(
    os.path.dirname(__file__), "..", "..", "..", "test", "vectors", "proofs", "verifier-vectors.json"
)


class VectorsTest(unittest.TestCase):
    def test_every_case_gets_the_typescript_verdict(self) -> None:
        with open(VECTORS, encoding="utf-8") as file:
            cases = json.load(file)["cases"]
        self.assertGreater(len(cases), 50)
        for case in cases:
            with self.subTest(case["name"]):
                ok, reason = verdict_of(case)
                self.assertEqual({"ok": ok, "reason": reason}, case["expect"])


if __name__ == "__main__":
    unittest.main()
