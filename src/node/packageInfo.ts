import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export interface PackageInfo {
  readonly name: string;
  readonly version: string;
}

/**
 * ledgerd's name and version from its package.json: the nearest one above this file, which is
 * two folders up from src/ under tsx and three from dist/src/ once built.
 */
export function packageInfo(): PackageInfo {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const text = readIfExists(join(dir, "package.json"));
    if (text !== null) {
      const parsed = JSON.parse(text) as { name?: unknown; version?: unknown };
      if (typeof parsed.name === "string" && typeof parsed.version === "string") {
        return { name: parsed.name, version: parsed.version };
      }
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error("ledgerd's package.json was not found");
    dir = parent;
  }
}

function readIfExists(path: string): string | null {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}
