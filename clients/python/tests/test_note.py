"""Signed notes and checkpoints: verifier keys, the base64 a browser reads, and a checkpoint
signed, cosigned and refused. The shared vectors cover the node's own notes."""

import unittest

from ledgerd_client import ed25519
from ledgerd_client.encoding import from_base64, to_base64
from ledgerd_client.note import (
    COSIGNATURE_TYPE,
    CheckpointRefused,
    NoteKey,
    note_key_id,
    parse_verifier_key,
    split_note,
    verify_checkpoint,
)

# RFC 8032 §7.1 TEST 2's key, under a name: a real key whose signatures the vectors of RFC 8032 give.
KEY = NoteKey(
    "example.com/log", bytes.fromhex("3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c")
)


def vkey(key: NoteKey, key_type: int = 1) -> str:
    return "%s+%s+%s" % (
        key.name,
        note_key_id(key, key_type).hex(),
        to_base64(bytes([key_type]) + key.public_key),
    )


class NoteTest(unittest.TestCase):
    def test_verifier_keys(self) -> None:
        self.assertEqual(parse_verifier_key(vkey(KEY)), KEY)
        self.assertIsNone(parse_verifier_key(vkey(KEY), COSIGNATURE_TYPE))
        self.assertEqual(parse_verifier_key(vkey(KEY, COSIGNATURE_TYPE), COSIGNATURE_TYPE), KEY)
        self.assertIsNone(parse_verifier_key(vkey(KEY).replace("+", "+0", 1)))
        self.assertIsNone(parse_verifier_key("a b" + vkey(KEY)[len(KEY.name) :]))
        self.assertIsNone(parse_verifier_key("no plus at all"))

    def test_base64_read_as_atob_reads_it(self) -> None:
        self.assertEqual(from_base64("AQID"), b"\x01\x02\x03")
        self.assertEqual(from_base64("AQ"), b"\x01")
        self.assertEqual(from_base64(" AQ ID "), b"\x01\x02\x03")
        self.assertIsNone(from_base64("A"))
        self.assertIsNone(from_base64("A=QI"))
        self.assertIsNone(from_base64("AQI*"))

    def test_split_note(self) -> None:
        note = "text\n\n\u2014 name " + to_base64(b"\x00\x01\x02\x03sig") + "\n"
        split = split_note(note)
        assert split is not None
        self.assertEqual(split.body, "text\n")
        self.assertEqual(split.signatures[0].signature, b"sig")
        self.assertIsNone(split_note(note[:-1]))
        self.assertIsNone(split_note("text\n"))
        self.assertIsNone(split_note(note.replace("\u2014", "-")))
        many = "text\n\n" + "\u2014 name AAAAAA==\n" * 101
        self.assertIsNone(split_note(many))

    def test_refuses_a_note_by_another_key_and_one_without_height(self) -> None:
        # A signature of RFC 8032's TEST 2 is no signature of a checkpoint text.
        body = KEY.name + "\n1\n" + to_base64(bytes(32)) + "\n"
        line = "\u2014 %s %s\n" % (KEY.name, to_base64(note_key_id(KEY) + bytes(64)))
        with self.assertRaises(CheckpointRefused) as refused:
            verify_checkpoint(body + "\n" + line, vkey(KEY), "1")
        self.assertEqual(refused.exception.reason, "it carries no valid signature by example.com/log")
        with self.assertRaises(CheckpointRefused):
            verify_checkpoint(body + "\n" + line, "nonsense", "1")
        self.assertTrue(
            ed25519.verify(
                bytes.fromhex(
                    "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da"
                    "085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"
                ),
                b"\x72",
                KEY.public_key,
            )
        )


if __name__ == "__main__":
    unittest.main()
