// The boundaries of src/ (docs/ARCHITECTURE.md, "Layers"), checked by dependency-cruiser on
// every `npm test` (`npm run lint:deps`). Dependencies point inward, to the layers below; a layer
// may read any layer below it, not only the next one, and never one beside it or above it:
//
//   cli/                           the command
//   testnet/                       networks of CometBFT and ledgerd processes
//   tools/                         the operator tools cli/ runs (backups, export/import, ...)
//   node/                          the composition root
//   config/                        the settings
//   http/, events/, metrics/       the servers; none imports another
//   httpWire/                      what the servers share: HTTP/1.1 on a raw socket
//   engine/ (solo | cometbft)
//   ledger/ (the ABCI app; its transaction kinds in ledger/kinds/)
//   store/ (the interface and its backends)
//   transaction/, legacy/, crypto-conditions/, proofs/   pure rules
//   json/, errors/                 the ground floor: json/ imports nothing of ours; errors/,
//                                  the one catalog, is thrown from every layer; clock/, the
//                                  time and timers services get in their deps, imports nothing
//
// The rules, by name (a rule's name says what broke):
//   no-folder-cycle, no-module-cycle     no cycle of folders, none of modules, `import type` included
//   json-imports-nothing-of-ours         json/ is the ground floor
//   pure-imports-no-io-folder            the pure folders import no IO folder of ours
//   pure-imports-no-io-module            ... and no Node or npm module that does IO
//   store-imports-no-upper-layer         store/ imports no ledger/, engine/, server or root code
//   ledger-imports-no-upper-layer        ledger/ imports no engine/, http/, events/, node/, ...
//   engine-imports-no-upper-layer        engine/ imports no http/, events/, metrics/, node/, ...
//   servers-import-no-other-server       http/, events/, metrics/ never import one another
//   servers-import-no-root               ... nor node/, tools/, cli/, testnet/, config/
//   node-imports-no-tool                 node/ builds the running node; the tools stand above it
//   tools-import-no-command              tools/ is called by cli/ and imports no cli/, testnet/
//   httpWire-imports-only-the-ground-floor   httpWire/ imports only errors/ and json/
//   http-reads-no-ledger-kind            http/ reads no transaction kind's module (ledger/kinds/)
//   config-reads-only-options            config/ imports of ours only the modules' options.ts
//   options-are-plain-data               an options.ts imports no code of ours and no IO module
//   not-to-unresolvable                  every import resolves
// `test/unit/boundaries.test.ts` plants a violation of each rule in a copy of the tree to prove
// the check fails on it.

/** The folders that hold pure rules: no IO, no clock, no database. */
const pure = "^src/(json|crypto-conditions|transaction|legacy|proofs)/";

/** The two outer rings, as alternatives of a pattern: the root, and the servers with what they share. */
const root = "node|tools|cli|testnet|config";
const servers = "http|httpWire|events|metrics";

/** Our IO folders, and the Node and npm modules that touch files, sockets or processes. */
const ioFolders = `^src/(store|ledger|engine|${servers}|${root})/`;
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
        "No module imports itself through a chain of imports, `import type` included: a cycle " +
        "closed by a type still means neither module can be read, changed or moved without the " +
        "other. Put the shared type in a file both import.",
      severity: "error",
      from: { path: "^src/" },
      to: { circular: true },
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
      comment: "Pure rules import no store, ledger, engine, server, node, CLI, testnet or config code.",
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
      comment: "The store is below the ledger: it never imports ledger, engine, server or root code.",
      severity: "error",
      from: { path: "^src/store/" },
      to: { path: `^src/(ledger|engine|${servers}|${root})/` },
    },
    {
      name: "ledger-imports-no-upper-layer",
      comment:
        "The ledger is the state machine the engines drive: it never imports an engine, a " +
        "server (HTTP, the event stream, metrics) or the root (node, CLI, testnet, settings); " +
        "what it needs of them it is handed.",
      severity: "error",
      from: { path: "^src/ledger/" },
      to: { path: `^src/(engine|${servers}|${root})/` },
    },
    {
      name: "engine-imports-no-upper-layer",
      comment: "An engine decides blocks for the ledger; the servers and the root call it, never the reverse.",
      severity: "error",
      from: { path: "^src/engine/" },
      to: { path: `^src/(${servers}|${root})/` },
    },
    {
      name: "servers-import-no-other-server",
      comment:
        "The API, the event stream and the metrics server sit side by side: what two of them " +
        "need goes below them (httpWire/), so none imports another.",
      severity: "error",
      from: { path: "^src/(http|events|metrics)/" },
      to: { path: "^src/(http|events|metrics)/", pathNot: "^src/$1/" },
    },
    {
      name: "servers-import-no-root",
      comment: "The servers are built by the node (the composition root) from options; they import no root code.",
      severity: "error",
      from: { path: `^src/(${servers})/` },
      to: { path: `^src/(${root})/` },
    },
    {
      name: "node-imports-no-tool",
      comment:
        "node/ is the composition root of a running node; the operator tools (tools/) use its " +
        "pieces (opening a store, the data directory's lock, the node key) from above, and a " +
        "running node never needs a tool.",
      severity: "error",
      from: { path: "^src/node/" },
      to: { path: "^src/tools/" },
    },
    {
      name: "tools-import-no-command",
      comment:
        "A tool does one operator's job and returns its result; the command (cli/) parses the " +
        "flags, calls it and prints. So tools/ imports no cli/ or testnet/ code.",
      severity: "error",
      from: { path: "^src/tools/" },
      to: { path: "^src/(cli|testnet)/" },
    },
    {
      name: "httpWire-imports-only-the-ground-floor",
      comment: "httpWire/ is below every server and knows none of the node: of ours it reads errors/ and json/.",
      severity: "error",
      from: { path: "^src/httpWire/" },
      to: { path: "^src/", pathNot: "^src/(httpWire|errors|json)/" },
    },
    {
      name: "http-reads-no-ledger-kind",
      comment:
        "The API may read the ledger's public modules (the proofs, the doors), never a " +
        "transaction kind's module (ledger/kinds/): a rule both need belongs in a pure folder.",
      severity: "error",
      from: { path: "^src/http/" },
      to: { path: "^src/ledger/kinds/" },
    },
    {
      name: "config-reads-only-options",
      comment:
        "The settings read each module's defaults from its options.ts (one source of defaults) " +
        "and nothing else of the modules, so that loading them loads no server, thread or " +
        "child process. json/, the ground floor, is read for its limits.",
      severity: "error",
      from: { path: "^src/config/" },
      to: { path: "^src/", pathNot: ["^src/config/", "^src/.+/options[.]ts$", "^src/json/"] },
    },
    {
      name: "options-are-plain-data",
      comment:
        "A module's options.ts holds its options' type and defaults: it imports no code of ours " +
        "(other options.ts aside) and no IO module, so reading a default costs nothing.",
      severity: "error",
      from: { path: "^src/.+/options[.]ts$" },
      to: { path: ["^src/", ...ioModules], pathNot: "^src/.+/options[.]ts$" },
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
