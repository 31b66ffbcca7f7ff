// The size of a writing connection's page cache. SQLite's B-tree balance (`balance_nonroot`),
// when it puts a node's new pages in order, borrows the page number of the lock byte (the page
// at 1 GiB) as a temporary key. That raises the page cache's highest key above the end of a file
// smaller than 1 GiB, so at the end of every write transaction the pager's truncation to the
// file's size walks the cache's whole hash table, one visit per cached page (pcache1Truncate;
// seen in SQLite 3.53). With 256 MiB cached, that walk was a quarter of a commit's time
// (`bench pageCache`, BENCHMARKS.md issue #18). So a writer keeps a small cache until its file
// passes 1 GiB, where the borrowed number falls inside the file and the walk stops; then the
// configured size. Reads below 1 GiB come through the memory map (mmapSizeBytes), not the cache.
import type Database from "better-sqlite3";

/** SQLite's lock byte (PENDING_BYTE): the offset of the page number the balance borrows. */
export const lockByteOffset = 0x4000_0000;

/** A writer's page cache while its file is smaller than `lockByteOffset` (better-sqlite3's default). */
export const smallFileCacheBytes = 16 * 1024 * 1024;

/** Sets `cache_size` for a writing connection from its file's size; call after each commit. */
export class WriterPageCache {
  readonly #db: Database.Database;
  readonly #configuredBytes: number;
  readonly #pageCount: Database.Statement;
  readonly #pageSize: number;
  readonly #largeFileBytes: number;
  #large = false;

  /** `largeFileBytes`: where the configured size begins (tests lower it). */
  constructor(db: Database.Database, configuredBytes: number, largeFileBytes = lockByteOffset) {
    this.#db = db;
    this.#configuredBytes = configuredBytes;
    this.#largeFileBytes = largeFileBytes;
    this.#pageCount = db.prepare("PRAGMA page_count").pluck();
    this.#pageSize = db.pragma("page_size", { simple: true }) as number;
    this.#set(Math.min(configuredBytes, smallFileCacheBytes));
    this.update();
  }

  /** Once the file has passed the lock byte, the configured size, for good. */
  update(): void {
    if (this.#large) return;
    if ((this.#pageCount.get() as number) * this.#pageSize < this.#largeFileBytes) return;
    this.#large = true;
    this.#set(this.#configuredBytes);
  }

  /** The cache size in effect, in bytes (tests). */
  get bytes(): number {
    return -(this.#db.pragma("cache_size", { simple: true }) as number) * 1024;
  }

  #set(bytes: number): void {
    this.#db.pragma(`cache_size = -${Math.floor(bytes / 1024)}`);
  }
}
