/**
 * A 48-bit hash of a string: the compact integer key under which the SQLite store indexes
 * transaction ids, asset ids and public keys. An index of 6-byte integers is about a fifth of
 * one of 64-character hex strings, so it stays in the page cache as the ledger grows and inserts
 * stay fast. It is not unique: every lookup also compares the full string, so a collision costs
 * one extra row read, never a wrong answer. (Two 32-bit FNV-style lanes with a final mix.)
 */
export function keyHash(text: string): number {
  let a = 0x811c9dc5;
  let b = 0x9747b28c;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  a ^= a >>> 16;
  a = Math.imul(a, 0x85ebca6b);
  a ^= a >>> 13;
  b ^= b >>> 16;
  b = Math.imul(b, 0xc2b2ae35);
  b ^= b >>> 16;
  return (a >>> 0) * 0x10000 + (b >>> 16);
}
