// A file replaced atomically and durably: written to a new file, synced, renamed over the old
// one, and the folder synced so the rename itself is on disk. A crash leaves the old file or
// the new one, never a torn one. The witness's heads and the auditor's state are kept so.
// Asynchronous: the write and the syncs run on libuv's threads, not the event loop (a node's
// HTTP requests go on meanwhile); the promise settles once all of it is on disk. One write at a
// time per path (they share the temporary file).
import { open, rename } from "node:fs/promises";
import { dirname } from "node:path";

export async function writeFileDurably(path: string, text: string): Promise<void> {
  const temporary = `${path}.tmp`;
  const file = await open(temporary, "w", 0o600);
  try {
    await file.writeFile(text);
    await file.sync();
  } finally {
    await file.close();
  }
  await rename(temporary, path);
  const dir = await open(dirname(path), "r");
  try {
    await dir.sync();
  } finally {
    await dir.close();
  }
}
