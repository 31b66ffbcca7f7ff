// The boundaries of src/ (README, "A tour of the folders"), checked by dependency-cruiser on
// every `npm test` (`npm run lint:deps`). Dependencies point inward:
//   http, events, cli -> engine (solo | cometbft) -> ledger -> transaction, crypto-conditions,
//   legacy, store; json/ below them all. node/ is the composition root that wires them.
// A rule's name says what broke; `test/unit/boundaries.test.ts` plants a violation of each
// kind in a copy of the tree to prove the check fails on it.

/** The folders that hold pure rules: no IO, no clock, no database. */
const pure = "^src/(json|crypto-conditions|transaction|legacy|proofs)/";

/** Our IO folders, and the Node and npm modules that touch files, sockets or processes. */
const ioFolders = "^src/(store|engine|http|node|events|cli|testnet)/";
const ioModules = [
  "^(node:)?(fs|fs/promises|net|tls|http|https|http2|dgram|dns|child_process|cluster|worker_threads|readline)$",
  "(^|/)node_modules/(better-sqlite3|fastify|@fastify/[^/]+|ws|pino)/",
];

/** @type {import("dependency-cruiser").IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-folder-cycle",
      comment:
        "Folders of src/ form layers: a cycle between two folders means neither is below the " +
        "other. Type-only imports count: a type names what a folder knows about. A folder and " +
        "its own subfolders (ledger/ and ledger/x/) are one unit here.",
      severity: "error",
      scope: "folder",
      from: { path: "^src/" },
      to: { circular: true },
    },
    {
      name: "no-module-cycle",
      comment:
        "No module imports itself through a chain of run-time imports (there are none today). " +
        "A cycle closed by an `import type` is allowed: it is gone after compilation.",
      severity: "error",
      from: { path: "^src/" },
      to: {
        circular: true,
        dependencyTypesNot: ["type-only"],
        viaOnly: { dependencyTypesNot: ["type-only"] },
      },
    },
    {
      name: "json-imports-nothing-of-ours",
      comment: "src/json/ is the ground floor: the exact reader, writers and canonical forms.",
      severity: "error",
      from: { path: "^src/json/" },
      to: { path: "^src/", pathNot: "^src/json/" },
    },
    {
      name: "pure-imports-no-io-folder",
      comment: "Pure rules import no store, engine, HTTP, node, events, CLI or testnet code.",
      severity: "error",
      from: { path: pure },
      to: { path: ioFolders },
    },
    {
      name: "pure-imports-no-io-module",
      comment: "Pure rules touch no files, sockets, processes or databases.",
      severity: "error",
      from: { path: pure },
      to: { path: ioModules },
    },
    {
      name: "store-imports-no-upper-layer",
      comment: "The store is below the ledger: it never imports ledger, engine or HTTP code.",
      severity: "error",
      from: { path: "^src/store/" },
      to: { path: "^src/(ledger|engine|http|node|events|cli|testnet)/" },
    },
    {
      name: "not-to-unresolvable",
      comment: "An import that resolves to nothing is a typo or a missing dependency.",
      severity: "error",
      from: { path: "^src/" },
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    // node_modules may be a symbolic link (worktrees share one): name packages by where they
    // are linked, node_modules/<name>/..., so the rules above can match them.
    preserveSymlinks: true,
    tsConfig: { fileName: "tsconfig.json" },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      extensions: [".ts", ".js", ".mjs", ".cjs", ".d.ts"],
    },
  },
};
