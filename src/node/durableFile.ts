// A file replaced atomically and durably: written to a new file, synced, renamed over the old
// one, and the folder synced so the rename itself is on disk. A crash leaves the old file or
// the new one, never a torn one. The witness's heads and the auditor's state are kept so.
import { closeSync, fsyncSync, openSync, renameSync, writeSync } from "node:fs";
import { dirname } from "node:path";

export function writeFileDurably(path: string, text: string): void {
  const temporary = `${path}.tmp`;
  const fd = openSync(temporary, "w", 0o600);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temporary, path);
  const dir = openSync(dirname(path), "r");
  try {
    fsyncSync(dir);
  } finally {
    closeSync(dir);
  }
}
