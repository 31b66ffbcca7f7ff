import { Buffer } from "node:buffer";
import { createPublicKey, verify, type KeyObject } from "node:crypto";
import { ed25519KeyCache } from "./ed25519KeyCache.js";

// SubjectPublicKeyInfo for Ed25519 (RFC 8410): SEQUENCE { SEQUENCE { OID 1.3.101.112 }, BIT STRING <32 bytes> }.
const spkiPrefix = Buffer.from("302a300506032b6570032100", "hex");

/**
 * Whether `signature` is a valid Ed25519 signature (RFC 8032, pure Ed25519) of `message` by
 * `publicKey` (32 raw bytes). Wrong lengths or a key OpenSSL cannot load are a false, not an
 * error: they are client input. Safe to call from worker threads (each has its own key cache).
 */
export function verifyEd25519(publicKey: Uint8Array, signature: Uint8Array, message: Uint8Array): boolean {
  if (publicKey.length !== 32 || signature.length !== 64) return false;
  const key = publicKeyObject(publicKey);
  if (key === null) return false;
  try {
    return verify(null, message, key, signature);
  } catch {
    return false;
  }
}

function publicKeyObject(publicKey: Uint8Array): KeyObject | null {
  const cacheKey = Buffer.from(publicKey.buffer, publicKey.byteOffset, 32).toString("latin1");
  const cached = ed25519KeyCache.get(cacheKey);
  if (cached !== undefined) return cached;
  let key: KeyObject;
  try {
    key = createPublicKey({ key: Buffer.concat([spkiPrefix, publicKey]), format: "der", type: "spki" });
  } catch {
    return null;
  }
  ed25519KeyCache.set(cacheKey, key);
  return key;
}
