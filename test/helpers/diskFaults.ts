// Faults planted in a SQLite file and its write-ahead log, at places drawn from a seeded Random
// (test/helpers/random.ts), so that a failure replays from its seed.
import { closeSync, openSync, readFileSync, statSync, writeSync } from "node:fs";
import Database from "better-sqlite3";
import type { Random } from "./random.js";

/** SQLite's log: a 32-byte header, then frames of a 24-byte header and a page (sqlite.org/fileformat2.html §4.1). */
export const walHeaderBytes = 32;
export const frameHeaderBytes = 24;

/** Writes `bytes` at `offset` of the file. */
export function patch(path: string, offset: number, bytes: Buffer): void {
  const fd = openSync(path, "r+");
  try {
    writeSync(fd, bytes, 0, bytes.length, offset);
  } finally {
    closeSync(fd);
  }
}

/** A leaf page of the transactions table, and the file's page size. */
export function transactionsPage(path: string, random: Random): { page: number; pageBytes: number } {
  const db = new Database(path, { readonly: true });
  try {
    const leaves = "SELECT pageno FROM dbstat WHERE name = 'transactions' AND pagetype = 'leaf' ORDER BY pageno";
    const pages = db.prepare(leaves).pluck().all() as number[];
    return { page: random.pick(pages), pageBytes: db.pragma("page_size", { simple: true }) as number };
  } finally {
    db.close();
  }
}

/**
 * Flips one byte of a page in a frame of the log's first half (commits follow it, as they
 * follow any frame a crash did not tear): that frame's checksum fails.
 */
export function flipWalFrame(wal: string, random: Random): { frame: number; frames: number; offset: number } {
  const original = readFileSync(wal);
  const pageBytes = original.readUInt32BE(8);
  const frames = Math.floor((statSync(wal).size - walHeaderBytes) / (frameHeaderBytes + pageBytes));
  const frame = random.int(Math.floor(frames / 2));
  const offset = walHeaderBytes + frame * (frameHeaderBytes + pageBytes) + frameHeaderBytes + random.int(pageBytes);
  patch(wal, offset, Buffer.from([original[offset]! ^ 0xff]));
  return { frame, frames, offset };
}
