// Loads the official-driver vectors in test/vectors/driver (its README.md says how they were made).
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export const vectorsDir = fileURLToPath(new URL("../vectors/driver/", import.meta.url));

export interface DriverVector {
  readonly file: string;
  readonly name: string;
  readonly expected: "valid" | "invalid" | "accepted-by-reference";
  readonly expected_error: string | null;
  readonly requires_committed: readonly { id: string; file: string }[];
  readonly tx: Record<string, unknown> & { id: string };
  readonly computed_id: string;
  readonly id_preimage: string;
  readonly signing: readonly { input_index: number; message_sha3_256_hex: string }[];
  readonly conflicts_with?: { file: string; tx: Record<string, unknown> & { id: string } };
}

export function loadVectors(): DriverVector[] {
  return readdirSync(vectorsDir)
    .filter((name) => /^[0-9][0-9a-z]_.*\.json$/.test(name))
    .sort()
    .map((file) => ({ file, ...JSON.parse(readFileSync(vectorsDir + file, "utf8")) }) as DriverVector);
}

export function loadVector(file: string): DriverVector {
  const found = loadVectors().find((v) => v.file === file);
  if (found === undefined) throw new Error(`no vector ${file}`);
  return found;
}

export interface DriverKey {
  readonly seed_hex: string;
  readonly public_key: string;
  readonly private_key: string;
}

export function loadKeys(): Record<"alice" | "bob" | "carol", DriverKey> {
  return JSON.parse(readFileSync(vectorsDir + "keys.json", "utf8")).keys;
}

/** A short description of a validation result for assertion messages (bigint-safe). */
export function describeResult(result: unknown): string {
  return JSON.stringify(result, (_key, value) => (typeof value === "bigint" ? value.toString() : value));
}
