// Witness cosignatures (docs/transparency.md "Witness", after C2SP tlog-cosignature, the Ed25519
// type 0x04): a signed-note signature line by the witness key over
// `cosignature/v1\ntime <T>\n` followed by the checkpoint's note text, whose signature bytes are
// the timestamp (u64, big-endian) then the Ed25519 signature. Its key ID is
// SHA-256(name || "\n" || 0x04 || public key)[:4]. Pure, no IO.
import { hashes, verify as ed25519Verify } from "@noble/ed25519";
import { sha512 } from "@noble/hashes/sha2.js";
import { noteKeyId, verifierKeyOf, type NoteKey, type NoteSignature } from "./signedNote.js";

hashes.sha512 = sha512;

/** The signature type byte of timestamped Ed25519 cosignatures. */
export const cosignatureType = 0x04;
const text = new TextEncoder();

/** The 4-byte key ID of a cosigner's Ed25519 key under this name. */
export function cosignatureKeyId(key: NoteKey): Uint8Array {
  return noteKeyId(key, cosignatureType);
}

/** The cosigner's verifier key: `<name>+<hex key ID>+base64(0x04 || public key)`. */
export function cosignatureVerifierKeyOf(key: NoteKey): string {
  return verifierKeyOf(key, cosignatureType);
}

/** What a cosignature signs: the header line, the time line, then the checkpoint's note text. */
export function cosignatureMessage(timestampSeconds: number, body: string): Uint8Array {
  return text.encode(`cosignature/v1\ntime ${timestampSeconds}\n${body}`);
}

/** A cosignature as a note signature: its bytes are the timestamp (u64 BE) then the signature. */
export function cosignatureOf(key: NoteKey, timestampSeconds: number, signature: Uint8Array): NoteSignature {
  const bytes = new Uint8Array(8 + signature.length);
  new DataView(bytes.buffer).setBigUint64(0, BigInt(timestampSeconds));
  bytes.set(signature, 8);
  return { name: key.name, keyId: cosignatureKeyId(key), signature: bytes };
}

/** Whether `signature` (a note signature's bytes after the key ID) cosigns `body` by `key`. */
export function verifyCosignature(key: NoteKey, body: string, signature: Uint8Array): boolean {
  if (signature.length !== 8 + 64) return false;
  const timestamp = new DataView(signature.buffer, signature.byteOffset).getBigUint64(0);
  if (timestamp === 0n || timestamp > BigInt(Number.MAX_SAFE_INTEGER)) return false;
  return ed25519Verify(signature.slice(8), cosignatureMessage(Number(timestamp), body), key.publicKey);
}
