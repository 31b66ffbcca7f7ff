"""Ed25519 verification against RFC 8032 §7.1's test vectors, and the signatures it must refuse."""

import unittest

from ledgerd_client.ed25519 import L, verify

# RFC 8032 §7.1, TEST 1 to 3: (public key, message, signature).
RFC8032 = [
    (
        "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
        "",
        "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b",
    ),
    (
        "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c",
        "72",
        "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00",
    ),
    (
        "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025",
        "af82",
        "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a",
    ),
]


class Ed25519Test(unittest.TestCase):
    def test_rfc8032_vectors_verify(self) -> None:
        for key, message, signature in RFC8032:
            self.assertTrue(verify(bytes.fromhex(signature), bytes.fromhex(message), bytes.fromhex(key)))

    def test_refuses_another_message_key_or_signature(self) -> None:
        key, message, signature = (bytes.fromhex(x) for x in RFC8032[2])
        self.assertFalse(verify(signature, message + b"\x00", key))
        self.assertFalse(verify(signature, message, bytes.fromhex(RFC8032[1][0])))
        spoilt = bytearray(signature)
        spoilt[0] ^= 1
        self.assertFalse(verify(bytes(spoilt), message, key))

    def test_refuses_s_not_below_the_group_order(self) -> None:
        key, message, signature = (bytes.fromhex(x) for x in RFC8032[1])
        s = int.from_bytes(signature[32:], "little") + L  # the same point, S not reduced
        self.assertFalse(verify(signature[:32] + s.to_bytes(32, "little"), message, key))

    def test_refuses_wrong_lengths_and_keys_off_the_curve(self) -> None:
        key, message, signature = (bytes.fromhex(x) for x in RFC8032[1])
        self.assertFalse(verify(signature[:63], message, key))
        self.assertFalse(verify(signature, message, key[:31]))
        # y = 2 is on no point of the curve.
        self.assertFalse(verify(signature, message, (2).to_bytes(32, "little")))


if __name__ == "__main__":
    unittest.main()
