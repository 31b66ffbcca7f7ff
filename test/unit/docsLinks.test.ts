// Every document the code and the docs point a reader to exists (STYLE rule 13): a `docs/...`
// path in a source file, a test, a benchmark, a script, the explorer, README.md or a page of
// docs/; a relative Markdown link in README.md or docs/ (an anchor after `#` is not checked,
// the file is); and every "STYLE rule N" a comment cites is a rule of docs/STYLE.md.
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";

const repo = fileURLToPath(new URL("../../", import.meta.url));

const sourceFolders = ["src", "test", "bench", "scripts", "explorer"];
const sourceFile = /\.(ts|tsx|mts|js|mjs|cjs|sh|html|css|json|md)$/;
const pages = ["README.md", "BENCHMARKS.md"];

/** The files under `dir` (relative to the repository) that may cite a document. */
function filesUnder(dir: string): string[] {
  return readdirSync(join(repo, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : filesUnder(path);
    return sourceFile.test(entry.name) ? [path] : [];
  });
}

/** The rule numbers of docs/STYLE.md: its numbered list items `N. **...**`. */
function styleRules(): Set<number> {
  const text = readFileSync(join(repo, "docs/STYLE.md"), "utf8");
  return new Set([...text.matchAll(/^(\d+)\. \*\*/gm)].map((m) => Number(m[1])));
}

/** What `text` (the file `file`, relative to the repository) cites that does not exist. */
function missingCitations(file: string, text: string, rules: ReadonlySet<number>): string[] {
  const missing: string[] = [];
  const exists = (path: string): boolean => existsSync(join(repo, path));
  // A path under docs/, with or without an anchor; not a URL path such as /api/v1/docs/.
  for (const m of text.matchAll(/(?<![\w./-])docs\/[\w./-]*/g)) {
    const path = m[0].replace(/[.-]+$/, "");
    if (!exists(path)) missing.push(`${file}: ${m[0]}`);
  }
  if (file.endsWith(".md")) {
    for (const m of text.matchAll(/\]\(([^)\s#]+)(?:#[^)\s]*)?\)/g)) {
      const target = m[1] ?? "";
      if (/^[a-z][\w+.-]*:/i.test(target) || target.startsWith("/")) continue;
      if (!exists(join(dirname(file), target))) missing.push(`${file}: (${target})`);
    }
  }
  for (const m of text.matchAll(/\bSTYLE(?:\.md)? rules? (\d+(?:(?:, | and | or )\d+)*)/g)) {
    for (const n of (m[1] ?? "").split(/, | and | or /).map(Number)) {
      if (!rules.has(n)) missing.push(`${file}: STYLE rule ${n}`);
    }
  }
  return missing;
}

describe("cited documents exist", () => {
  const rules = styleRules();

  it("docs/STYLE.md numbers its rules from 1 without a gap", () => {
    const numbers = [...rules].sort((a, b) => a - b);
    assert.ok(numbers.length >= 15, `${numbers.length} rules`);
    assert.deepEqual(numbers, numbers.map((_, i) => i + 1));
  });

  it("in the sources, README.md and docs/", () => {
    const files = [
      ...sourceFolders.flatMap(filesUnder),
      ...pages.filter((page) => existsSync(join(repo, page))),
      ...filesUnder("docs"),
    ];
    assert.ok(files.some((f) => f.startsWith("src/")) && files.includes("docs/STYLE.md"));
    const missing = files.flatMap((file) => missingCitations(file, readFileSync(join(repo, file), "utf8"), rules));
    assert.deepEqual(missing, []);
  });

  it("the check sees a missing page, a missing link target and a missing rule", () => {
    const docs = "doc" + "s";
    const unknown = 99;
    const text = [
      `// see ${docs}/nowhere.md#part, ${docs}/errors.md and /api/v1/${docs}/swagger.css`,
      `// (STYLE rules 4 and ${unknown})`,
    ].join("\n");
    assert.deepEqual(missingCitations("src/x.ts", text, rules), [
      `src/x.ts: ${docs}/nowhere.md`,
      `src/x.ts: STYLE rule ${unknown}`,
    ]);
    const page = "[there](nowhere.md#a), [here](errors.md#codes), [web](https://example.org/x)";
    assert.deepEqual(missingCitations(`${docs}/x.md`, page, rules), [`${docs}/x.md: (nowhere.md)`]);
  });
});
