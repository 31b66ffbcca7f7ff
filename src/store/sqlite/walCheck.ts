// The write-ahead log left by a node that did not close (a crash, a kill, power loss), read
// before SQLite opens the database. SQLite replays the log's frames up to the first one whose
// checksum fails and drops the rest without a word (sqlite.org/fileformat2.html §4.3), then
// checkpoints and deletes the log: a byte flipped in a frame in the middle of the log would open
// a ledger some blocks shorter than the one it acknowledged, and a solo node would then commit
// other blocks at those heights. Only the last transaction of a log can be torn by a crash: with
// `synchronous` full each commit's frames are on disk before the next is written. So a bad frame
// followed by more than that one transaction's commit means committed blocks would be lost, and
// the store refuses to open instead. It does under CometBFT too, though CometBFT's handshake
// would replay the blocks lost: frames a checkpoint already copied into the file are not
// dropped from it, so a page rewritten after the bad frame would be read in its older version
// from a frame before it, beside newer pages: a mix no replay repairs.
import { closeSync, openSync, readSync, statSync } from "node:fs";

/** The log's header and each frame's header, in bytes (the file format, §4.1). */
const walHeaderBytes = 32;
const frameHeaderBytes = 24;
/** The two magic numbers: checksums of big-endian or little-endian 32-bit words. */
const magicLittleEndian = 0x377f0682;
const magicBigEndian = 0x377f0683;

/** What a log holds past its first bad frame. */
export interface WalDamage {
  /** The log's file. */
  readonly path: string;
  /** The first frame (from 0) whose checksum fails. */
  readonly badFrame: number;
  /** Commit frames of the log's current generation at or after it. */
  readonly commitsAfter: number;
}

/**
 * The damage in the log beside `databasePath` that would drop committed transactions, or null
 * (no log, a log SQLite reads whole, or a torn last transaction, which was never acknowledged).
 */
export function walDamage(databasePath: string): WalDamage | null {
  const path = `${databasePath}-wal`;
  let size: number;
  try {
    size = statSync(path).size;
  } catch {
    return null;
  }
  if (size < walHeaderBytes) return null;
  const fd = openSync(path, "r");
  try {
    return damageIn(fd, path, size);
  } finally {
    closeSync(fd);
  }
}

function damageIn(fd: number, path: string, size: number): WalDamage | null {
  const header = Buffer.alloc(walHeaderBytes);
  readSync(fd, header, 0, walHeaderBytes, 0);
  const magic = header.readUInt32BE(0);
  if (magic !== magicLittleEndian && magic !== magicBigEndian) return null;
  const bigEndian = magic === magicBigEndian;
  const pageBytes = header.readUInt32BE(8);
  let sums = checksum(bigEndian, header.subarray(0, 24), [0, 0]);
  // A header that does not check out makes SQLite ignore the whole log: nothing to compare.
  if (sums[0] !== header.readUInt32BE(24) || sums[1] !== header.readUInt32BE(28)) return null;
  const salts = header.subarray(16, 24);
  const frame = Buffer.alloc(frameHeaderBytes + pageBytes);
  const frames = Math.floor((size - walHeaderBytes) / frame.length);
  let badFrame = -1;
  let commitsAfter = 0;
  for (let n = 0; n < frames; n++) {
    readSync(fd, frame, 0, frame.length, walHeaderBytes + n * frame.length);
    // A frame of an earlier generation of the log (other salts) is not read by SQLite.
    if (!frame.subarray(8, 16).equals(salts)) break;
    const isCommit = frame.readUInt32BE(4) !== 0;
    if (badFrame < 0) {
      sums = checksum(bigEndian, frame.subarray(0, 8), sums);
      sums = checksum(bigEndian, frame.subarray(frameHeaderBytes), sums);
      if (sums[0] === frame.readUInt32BE(16) && sums[1] === frame.readUInt32BE(20)) continue;
      badFrame = n;
    }
    if (isCommit) commitsAfter++;
  }
  return commitsAfter > 1 ? { path, badFrame, commitsAfter } : null;
}

/** The log's running checksum over `data` (8-byte steps), from `seed` (§4.1). */
function checksum(bigEndian: boolean, data: Buffer, seed: readonly [number, number]): [number, number] {
  let [s0, s1] = seed;
  for (let i = 0; i < data.length; i += 8) {
    const x0 = bigEndian ? data.readUInt32BE(i) : data.readUInt32LE(i);
    const x1 = bigEndian ? data.readUInt32BE(i + 4) : data.readUInt32LE(i + 4);
    s0 = (s0 + x0 + s1) >>> 0;
    s1 = (s1 + x1 + s0) >>> 0;
  }
  return [s0, s1];
}
