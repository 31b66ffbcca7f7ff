// A database this ledgerd does not open as it is: written by a newer ledgerd, not a ledgerd
// database, or of an older schema that only a writer may migrate. The operator's to settle (a
// newer release, the right file, the writing node first), never a bug: a node that meets it at
// start refuses in one line, no stack (node/startNode.ts).

export class SchemaRefused extends Error {
  override readonly name = "SchemaRefused";
}
