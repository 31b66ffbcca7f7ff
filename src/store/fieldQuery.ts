// Queries by field (docs/compatibility.md #25): equality on the scalar leaves of asset data and
// metadata, shared by every backend. A document is indexed as a set of leaves, each a path of
// object keys and a JSON scalar; a query is a list of (path, scalar) that must all be leaves.
// Arrays are transparent: each element sits at the array's own path, so a filter on an array
// matches when any element equals it. These limits decide what is indexed, so they are constants,
// not settings: two nodes (or one node before and after a restart) must index the same leaves.

/** A JSON scalar as JSON.parse gives it: numbers compare as IEEE doubles (`1.0` equals `1`). */
export type FieldScalar = string | number | boolean | null;

export interface FieldFilter {
  /** Object keys from the document's root; array levels are not named. */
  readonly path: readonly string[];
  readonly value: FieldScalar;
}

/** A leaf deeper than this many keys is not indexed, and a filter on a longer path is refused. */
export const fieldPathKeysMax = 8;
/** Only the first this many leaves of a document (in document order) are indexed. */
export const fieldLeavesMax = 128;
/** A leaf whose value is longer than this as JSON text is not indexed; such a filter is refused. */
export const fieldValueCharsMax = 256;
/** A query with more filters than this is refused. */
export const fieldFiltersMax = 8;

/** The indexed leaves of a document (compact JSON text), as their `fieldKey` strings, unique. */
export function fieldLeafKeys(kind: "assets" | "metadata", json: string): string[] {
  const keys = new Set<string>();
  // An explicit stack, not recursion: arrays may nest as deep as the document does, and a
  // document must never overflow the block writer's stack. Pushed in reverse: document order.
  // A path travels as the JSON text of its keys so far (`["a","b"` without the bracket that
  // closes it), which is what fieldKey writes, built once per object instead of once per leaf.
  const stack: Frame[] = [{ value: JSON.parse(json), keys: 0, pathText: "[" }];
  while (stack.length > 0 && keys.size < fieldLeavesMax) {
    const { value, keys: depth, pathText } = stack.pop()!;
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], keys: depth, pathText });
    } else if (value !== null && typeof value === "object") {
      if (depth >= fieldPathKeysMax) continue;
      const entries = Object.entries(value);
      const separator = depth === 0 ? "" : ",";
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, item] = entries[i]!;
        stack.push({ value: item, keys: depth + 1, pathText: `${pathText}${separator}${JSON.stringify(key)}` });
      }
    } else if (depth > 0) {
      // The root itself is not a field: a filter names at least one key.
      const text = JSON.stringify(value);
      if (text.length <= fieldValueCharsMax) keys.add(`${kind}\u0000${pathText}]\u0000${text}`);
    }
  }
  return [...keys];
}

interface Frame {
  readonly value: unknown;
  /** How many object keys lead to `value`. */
  readonly keys: number;
  readonly pathText: string;
}

/** The string a leaf is indexed under; a backend may hash it (the SQLite one does, keyHash). */
export function fieldKey(kind: "assets" | "metadata", filter: FieldFilter): string {
  return fieldKeyOf(kind, filter.path, JSON.stringify(filter.value));
}

function fieldKeyOf(kind: string, path: readonly string[], valueJson: string): string {
  // JSON text of the path: no key can run into the next one, whatever characters it holds.
  return `${kind}\u0000${JSON.stringify(path)}\u0000${valueJson}`;
}

/**
 * Why a filter can never match an indexed leaf, or null when it can: the same limits as
 * fieldLeafKeys, so a filter the index cannot answer is refused instead of answering nothing.
 */
export function fieldFilterProblem(filter: FieldFilter): string | null {
  if (filter.path.length === 0) return "names no key";
  if (filter.path.length > fieldPathKeysMax) {
    return `has ${filter.path.length} keys; at most ${fieldPathKeysMax} are indexed`;
  }
  const chars = JSON.stringify(filter.value).length;
  if (chars > fieldValueCharsMax) {
    return `value is ${chars} characters as JSON; at most ${fieldValueCharsMax} are indexed`;
  }
  return null;
}

/** True when the document (compact JSON text) has every filter as an indexed leaf. */
export function fieldsMatch(kind: "assets" | "metadata", json: string, filters: readonly FieldFilter[]): boolean {
  const leaves = new Set(fieldLeafKeys(kind, json));
  return filters.every((filter) => leaves.has(fieldKey(kind, filter)));
}
