// The snapshots a node keeps for state sync, as files (docs/state-sync.md): under the data
// folder's `snapshots/`, one folder per height holding `metadata.json`, its chunks
// `<index>.chunk` and `format` (its ABCI format, in decimal; none in a folder of format 1, written
// before there was a second). A snapshot is written into `<height>.partial/` and renamed when whole, so a
// folder named by a height is always a whole snapshot; a partial one left by a crash is removed
// at the next start. `restoring/` holds the chunks of a snapshot being restored. Every file is
// read, written and removed asynchronously, off the event loop, but in the constructor (the
// node's start): commits and the ABCI connections go on meanwhile (issue #39).
import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { encodeMetadata, readMetadata, snapshotFormat, snapshotHash, type SnapshotMetadata } from "../../ledger/snapshotFormat.js";

/** A kept snapshot as ABCI's ListSnapshots lists it. */
export interface KeptSnapshot {
  readonly height: number;
  readonly format: number;
  readonly chunks: number;
  readonly hash: Uint8Array;
  readonly metadata: Uint8Array;
}

/** A snapshot being written: its chunks into the partial folder, then `finish` makes it whole. */
export interface SnapshotWriter {
  putChunk(index: number, chunk: Buffer): Promise<void>;
  finish(metadata: SnapshotMetadata): Promise<void>;
  abandon(): Promise<void>;
}

const heightName = /^[1-9][0-9]{0,15}$/;

export class SnapshotFiles {
  constructor(private readonly dir: string) {
    mkdirSync(dir, { recursive: true });
    for (const name of readdirSync(dir)) if (name.endsWith(".partial")) rmSync(join(dir, name), { recursive: true, force: true });
  }

  /** The whole snapshots kept, highest first. A folder whose metadata cannot be read is skipped. */
  async list(): Promise<KeptSnapshot[]> {
    const kept: KeptSnapshot[] = [];
    for (const height of await this.heights()) {
      const metadata = await readFile(join(this.dir, String(height), "metadata.json")).catch(() => null);
      if (metadata === null) continue;
      const read = readMetadata(metadata);
      if (typeof read === "string") continue;
      kept.push({ height, format: await this.formatOf(height), chunks: read.chunks.length, hash: snapshotHash(metadata), metadata });
    }
    return kept;
  }

  /** The kept snapshots' heights, highest first. */
  async heights(): Promise<number[]> {
    return (await readdir(this.dir)).filter((name) => heightName.test(name)).map(Number).sort((a, b) => b - a);
  }

  /** A chunk of a kept snapshot of this format, or null when there is none such. */
  async chunk(height: number, format: number, index: number): Promise<Buffer | null> {
    if (!Number.isSafeInteger(height) || !Number.isSafeInteger(index) || index < 0) return null;
    if (!heightName.test(String(height)) || (await this.formatOf(height)) !== format) return null;
    return readFile(join(this.dir, String(height), `${index}.chunk`)).catch(() => null);
  }

  /** A kept snapshot's format: its `format` file's, else 1 (kept by a release that took no other). */
  private async formatOf(height: number): Promise<number> {
    const text = await readFile(join(this.dir, String(height), "format"), "utf8").catch(() => null);
    return text === null ? 1 : Number(text);
  }

  /** A snapshot's writer: its chunks into the partial folder, then `finish` makes it whole. */
  async writer(height: number): Promise<SnapshotWriter> {
    const partial = join(this.dir, `${height}.partial`);
    await rm(partial, { recursive: true, force: true });
    await mkdir(partial);
    return {
      putChunk: (index, chunk) => writeFile(join(partial, `${index}.chunk`), chunk),
      finish: async (metadata) => {
        await writeFile(join(partial, "metadata.json"), encodeMetadata(metadata));
        await writeFile(join(partial, "format"), String(snapshotFormat));
        await rm(join(this.dir, String(height)), { recursive: true, force: true });
        await rename(partial, join(this.dir, String(height)));
      },
      abandon: () => rm(partial, { recursive: true, force: true }),
    };
  }

  /** Removes all but the `keep` highest snapshots. */
  async prune(keep: number): Promise<void> {
    for (const height of (await this.heights()).slice(keep)) await rm(join(this.dir, String(height)), { recursive: true, force: true });
  }

  /** The folder a restore keeps the chunks it received in, emptied. */
  async restoring(): Promise<string> {
    const dir = join(this.dir, "restoring");
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir);
    return dir;
  }

  /** Removes the restore's folder. */
  doneRestoring(): Promise<void> {
    return rm(join(this.dir, "restoring"), { recursive: true, force: true });
  }
}
