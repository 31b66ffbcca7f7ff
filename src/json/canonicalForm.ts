// A file of its own: the serializer and the quoting and number writers it calls all name it, and
// none of them may import another in a circle, not even for a type.

/**
 * Which driver's canonical JSON (docs/compatibility.md #7):
 * - "python": BigchainDB's `rapidjson.dumps(d, skipkeys=False, ensure_ascii=False,
 *   sort_keys=True)` (docs/bigchaindb-behaviour.md §2.1), what the server and the Python driver
 * hash;
 * - "js": json-stable-stringify as bigchaindb-driver 4.3.0 calls it (`a.key > b.key ? 1 : -1`
 *   over `JSON.stringify` pieces), what the JavaScript driver hashes.
 *   One deliberate difference: the driver first runs `clone()` (clone@2), which drops keys named
 *   after Object.prototype members (`toString`, `constructor`, `__proto__`, ...). It drops them
 *   from the transaction it posts as well, so no driver-made transaction has them; hashing every
 *   key keeps the id covering all content (a skipped key could be added by anyone).
 */
export type CanonicalForm = "python" | "js";
