// docs/ARCHITECTURE.md and the tree say the same: its tour has a row for every folder of src/
// naming an entry file that exists, and its layer block is the real order of src/'s imports
// (STYLE rule 13: a document the code is read by must be true of the code).
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";

const repo = fileURLToPath(new URL("../../", import.meta.url));
const page = readFileSync(join(repo, "docs/ARCHITECTURE.md"), "utf8");

/** The folders under `dir` (relative to the repository), depth first. */
function foldersUnder(dir: string): string[] {
  return readdirSync(join(repo, dir), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((entry) => [`${dir}/${entry.name}`, ...foldersUnder(`${dir}/${entry.name}`)]);
}

/** The names of the top folders of src/: `cli`, `config`, ... */
function topFolders(): string[] {
  return foldersUnder("src").filter((f) => f.split("/").length === 2).map((f) => f.slice(4));
}

interface TourRow {
  readonly entry: string;
  readonly text: string;
}

/** The tour's rows: | `folder/` | `entry file` | what it owns |, by folder. */
function tourRows(): Map<string, TourRow> {
  const tour = page.slice(page.indexOf("## The folders"));
  const rows = new Map<string, TourRow>();
  for (const m of tour.matchAll(/^\| `((?:src\/)?[\w-]+\/)` \| (?:`([^`]+)`)? *\|(.*)\|$/gm)) {
    rows.set(m[1] ?? "", { entry: m[2] ?? "", text: m[3] ?? "" });
  }
  return rows;
}

/** The layer block: each line's folders (`x/` words before the description), top first. */
function layers(): string[][] {
  const section = page.slice(page.indexOf("## Layers"));
  const block = /```\n([\s\S]*?)\n```/.exec(section)?.[1] ?? "";
  return block.split("\n").map((line) => {
    const folders: string[] = [];
    for (const word of line.trim().split(/\s+/)) {
      if (!/^[\w-]+\/$/.test(word)) break;
      folders.push(word.slice(0, -1));
    }
    return folders;
  });
}

/** Every .ts/.mjs file under `dir`, relative to the repository. */
function sourceFiles(dir: string): string[] {
  return readdirSync(join(repo, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|mjs)$/.test(entry.name) ? [path] : [];
  });
}

/** The top folder of src/ that `file` (relative to the repository) is in; undefined for src/'s own files. */
function topOf(file: string): string | undefined {
  const parts = file.split("/");
  return parts.length > 2 ? parts[1] : undefined;
}

/** The relative imports of a file (static, re-exports, type-only and dynamic), as repository paths. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(repo, file), "utf8");
  const found = text.matchAll(/(?:\bfrom|\bimport)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g);
  return [...found].map((m) => relative(repo, resolve(repo, dirname(file), m[1] ?? "")));
}

describe("docs/ARCHITECTURE.md's tour", () => {
  const rows = tourRows();

  it("has a row for every top folder of src/, and names none that does not exist", () => {
    const named = [...rows.keys()].filter((f) => f.startsWith("src/")).map((f) => f.slice(4, -1));
    assert.deepEqual(named.slice().sort(), topFolders().sort());
  });

  it("names every subfolder in its top folder's row", () => {
    for (const folder of foldersUnder("src").filter((f) => f.split("/").length > 2)) {
      const [, top, ...rest] = folder.split("/");
      const text = rows.get(`src/${top}/`)?.text ?? "";
      assert.ok(text.includes(`\`${rest.join("/")}/\``), `the src/${top}/ row names ${rest.join("/")}/`);
    }
  });

  it("names in the explorer/ row the folders of src/ the explorer imports, and it imports no other", () => {
    const named = [...(rows.get("explorer/")?.text ?? "").matchAll(/`src\/([\w-]+)\/`/g)].map((m) => m[1]);
    assert.ok(named.length > 0, "the explorer/ row names what of src/ it imports");
    const files = readdirSync(join(repo, "explorer/src")).filter((n) => /\.tsx?$/.test(n));
    const wrong = files.flatMap((name) => importsOf(`explorer/src/${name}`).filter((to) => to.startsWith("src/") && !named.includes(topOf(to))).map((to) => `explorer/src/${name} -> ${to}`));
    assert.deepEqual(wrong, []);
  });

  it("gives each folder of src/ an entry file that exists and starts with a header", () => {
    for (const [folder, row] of rows) {
      if (!folder.startsWith("src/")) continue;
      const entry = join(repo, folder, row.entry);
      assert.ok(row.entry !== "" && existsSync(entry), `${folder}: entry file ${row.entry}`);
      const first = readFileSync(entry, "utf8").replace(/^#!.*\n/, "").trimStart();
      assert.match(first, /^(\/\/|\/\*)/, `${folder}${row.entry} starts with a comment`);
    }
  });

  it("links every page of docs/ in the docs/ row", () => {
    const text = rows.get("docs/")?.text ?? "";
    for (const name of readdirSync(join(repo, "docs")).filter((n) => n.endsWith(".md"))) {
      assert.ok(text.includes(`(${name})`), `the docs/ row links ${name}`);
    }
  });
});

describe("docs/ARCHITECTURE.md's layers", () => {
  const lines = layers();
  const layerOf = new Map(lines.flatMap((folders, i) => folders.map((f) => [f, i] as const)));

  it("place every top folder of src/ exactly once", () => {
    assert.deepEqual([...lines.flat()].sort(), topFolders().sort());
  });

  it("are the order of the imports: none goes up a layer or sideways", () => {
    const wrong: string[] = [];
    for (const file of sourceFiles("src")) {
      const from = topOf(file);
      if (from === undefined) continue;
      for (const target of importsOf(file)) {
        const to = topOf(target);
        if (to === undefined || to === from) continue;
        if ((layerOf.get(to) ?? -1) <= (layerOf.get(from) ?? -1)) wrong.push(`${file} -> ${target}`);
      }
    }
    assert.deepEqual(wrong, []);
  });

  it("finds the imports it judges, type-only ones too", () => {
    const imports = importsOf("src/engine/broadcaster.ts");
    assert.ok(imports.some((path) => topOf(path) === "ledger"), imports.join(", "));
    assert.ok((layerOf.get("ledger") ?? -1) > (layerOf.get("engine") ?? -1));
  });
});
