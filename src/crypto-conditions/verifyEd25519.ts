import { verify } from "node:crypto";
import { ed25519PublicKey, type Ed25519PublicKey } from "./ed25519PublicKey.js";

/**
 * Whether `signature` is a valid Ed25519 signature (RFC 8032, pure Ed25519) of `message` by
 * `publicKey`. Wrong lengths or a key OpenSSL cannot load are a false, not an error: they are
 * client input. Safe to call from worker threads (each has its own key cache).
 */
export function verifyEd25519Key(publicKey: Ed25519PublicKey, signature: Uint8Array, message: Uint8Array): boolean {
  if (signature.length !== 64) return false;
  const key = publicKey.keyObject;
  if (key === null) return false;
  try {
    return verify(null, message, key, signature);
  } catch {
    return false;
  }
}

/** `verifyEd25519Key` for a raw key (32 bytes). */
export function verifyEd25519(publicKey: Uint8Array, signature: Uint8Array, message: Uint8Array): boolean {
  if (publicKey.length !== 32) return false;
  return verifyEd25519Key(ed25519PublicKey(publicKey), signature, message);
}
