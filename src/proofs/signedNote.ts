// Signed notes (docs/transparency.md "Signed notes", after C2SP signed-note): a text ending in a
// newline, a blank line, then one line per signature, `— <key name> base64(key ID || signature)`.
// ledgerd signs with Ed25519 (signature type 0x01): the key ID is the first four bytes of
// SHA-256(name || "\n" || 0x01 || public key), and the verifier key is written
// `<name>+<hex key ID>+base64(0x01 || public key)`. A verifier ignores signatures by keys it
// does not know (a witness's cosignature among them) and needs one by the key it trusts.
// Pure, no IO: the auditor and a browser share it.
import { hashes, verify as ed25519Verify } from "@noble/ed25519";
import { sha512 } from "@noble/hashes/sha2.js";
import { fromBase64, toBase64, toHex } from "./encoding.js";
import { sha256 } from "./sha256.js";

hashes.sha512 = sha512;

/** The signature type byte of plain Ed25519 signatures. */
export const ed25519Type = 0x01;
const keyIdBytes = 4;
const emDash = "\u2014";
const text = new TextEncoder();

export interface NoteKey {
  readonly name: string;
  /** The raw 32-byte Ed25519 public key. */
  readonly publicKey: Uint8Array;
}

export interface NoteSignature {
  readonly name: string;
  readonly keyId: Uint8Array;
  readonly signature: Uint8Array;
}

/**
 * Whether `name` may name a key (and so a checkpoint's origin, which ledgerd signs with its
 * name): not empty, no Unicode space, no `+`, no control character, as signed-note requires.
 */
export function isKeyName(name: string): boolean {
  return name.length > 0 && !/[\s+\u0000-\u001f\u007f\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/u.test(name);
}

/** The 4-byte key ID of an Ed25519 key under this name, for signatures of `type` (0x01 plain). */
export function noteKeyId(key: NoteKey, type: number = ed25519Type): Uint8Array {
  return sha256(text.encode(`${key.name}\n`), Uint8Array.of(type), key.publicKey).slice(0, keyIdBytes);
}

/** The verifier key: `<name>+<hex key ID>+base64(type || public key)`. */
export function verifierKeyOf(key: NoteKey, type: number = ed25519Type): string {
  return `${key.name}+${toHex(noteKeyId(key, type))}+${toBase64(Uint8Array.of(type, ...key.publicKey))}`;
}

/** A verifier key read back; null when it is not an Ed25519 vkey of `type` whose ID matches. */
export function parseVerifierKey(vkey: string, type: number = ed25519Type): NoteKey | null {
  // The key's base64 may hold `+` itself: the name and the ID are the first two fields.
  const first = vkey.indexOf("+");
  const second = vkey.indexOf("+", first + 1);
  if (first < 0 || second < 0) return null;
  const [name, idHex, keyText] = [vkey.slice(0, first), vkey.slice(first + 1, second), vkey.slice(second + 1)];
  if (!isKeyName(name) || !/^[0-9a-f]{8}$/.test(idHex)) return null;
  let material: Uint8Array;
  try {
    material = fromBase64(keyText);
  } catch {
    return null;
  }
  if (material.length !== 33 || material[0] !== type) return null;
  const key = { name, publicKey: material.slice(1) };
  return toHex(noteKeyId(key, type)) === idHex ? key : null;
}

/** The note: `body` (ending in a newline), a blank line, then the signature lines. */
export function signedNoteOf(body: string, signatures: readonly NoteSignature[]): string {
  const lines = signatures.map((s) => `${emDash} ${s.name} ${toBase64(Uint8Array.of(...s.keyId, ...s.signature))}\n`);
  return `${body}\n${lines.join("")}`;
}

/**
 * The most signature lines a note may carry (Go's x/mod note refuses more than 100 as well): a
 * verifier's work grows with keys × signatures, and a witness checks notes anyone may send.
 */
export const noteSignaturesMax = 100;

/** A note split into its text (with its final newline) and signatures; null when malformed or carrying more than `noteSignaturesMax` signatures. */
export function splitNote(note: string): { body: string; signatures: NoteSignature[] } | null {
  if (!note.endsWith("\n") || /[\u0000-\u0009\u000b-\u001f]/.test(note)) return null;
  // The text ends at the last blank line; the signature lines follow it.
  const split = note.lastIndexOf("\n\n");
  if (split < 0) return null;
  const body = note.slice(0, split + 1);
  const signatures: NoteSignature[] = [];
  const lines = note.slice(split + 2, -1).split("\n");
  if (lines.length > noteSignaturesMax) return null;
  for (const line of lines) {
    const match = /^\u2014 (\S+) ([A-Za-z0-9+/=]+)$/u.exec(line);
    if (match === null) return null;
    let bytes: Uint8Array;
    try {
      bytes = fromBase64(match[2]!);
    } catch {
      return null;
    }
    if (bytes.length < keyIdBytes) return null;
    signatures.push({ name: match[1]!, keyId: bytes.slice(0, keyIdBytes), signature: bytes.slice(keyIdBytes) });
  }
  return signatures.length === 0 ? null : { body, signatures };
}

/**
 * The note's text when it carries a valid signature by `key`; null when it carries none, or one
 * by that key (same name and ID) that does not verify. Other signatures are ignored.
 */
export function openNote(note: string, key: NoteKey): string | null {
  const split = splitNote(note);
  if (split === null) return null;
  const id = toHex(noteKeyId(key));
  const mine = split.signatures.filter((s) => s.name === key.name && toHex(s.keyId) === id);
  if (mine.length === 0) return null;
  const message = text.encode(split.body);
  const valid = mine.every((s) => s.signature.length === 64 && ed25519Verify(s.signature, message, key.publicKey));
  return valid ? split.body : null;
}

