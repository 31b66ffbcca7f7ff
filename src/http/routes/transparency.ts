// The history tree in the transparency logs' formats (docs/transparency.md): the node's signed
// checkpoint (C2SP tlog-checkpoint, a signed note by the node key), its verifier key, and the
// tree as C2SP tiles under the log prefix `/api/v1/tlog/` (`checkpoint`, `tile/<L>/<N>[.p/<W>]`,
// `tile/entries/<N>[.p/<W>]`). Under CometBFT the latest checkpoint is of the last height whose
// app hash a signed header carries, as the proofs' default anchor (routes/proofs.ts).
import { Buffer } from "node:buffer";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { LedgerError } from "../../errors/ledgerError.js";
import type { CheckpointNotary, SignedCheckpoint } from "../../ledger/checkpoints.js";
import type { Witness } from "../../ledger/witness.js";
import { historyHeadOf, readTile } from "../../ledger/tiles.js";
import { parseTilePath, tileWidth } from "../../proofs/tiles.js";
import type { ChainReads } from "../../store/store.js";
import { badParameter, firstValue, rejectUnknown, type Query } from "../parameters.js";
import { queryNames } from "../queryNames.js";
import { addResource } from "../resource.js";
import type { SignedHeaders } from "./proofs.js";

export interface TransparencyDeps {
  readonly store: ChainReads;
  /** The node key's checkpoints; none where the process has no node key (serve-reads). */
  readonly checkpoints?: CheckpointNotary;
  readonly signedHeaders?: SignedHeaders;
  /** ledgerd as a witness of other logs (witness.logs); none: the witness route answers 404. */
  readonly witness?: Witness;
}

export const tlogPrefix = "/api/v1/tlog";

/** C2SP tlog-tiles: the checkpoint is mutable, "no caching beyond a few seconds". */
const checkpointCacheControl = "public, max-age=2";
/** Full tiles never change: cached for a year. */
const fullTileCacheControl = "public, max-age=31536000, immutable";
/**
 * A partial tile never changes either, but it is replaced by its full tile as the log grows
 * (and a log may drop it then): cached an hour, so caches let it go.
 */
const partialTileCacheControl = "public, max-age=3600";
/** A checkpoint size is a tree size: decimal, at most 16 digits (2^53 has 16). */
const sizeCharsMax = 16;

export function registerTransparencyRoutes(app: FastifyInstance, deps: TransparencyDeps): void {
  const notary = (): CheckpointNotary => {
    if (deps.checkpoints === undefined) throw new LedgerError("NotFound", "This process has no node key and signs no checkpoints");
    return deps.checkpoints;
  };
  const latest = async (): Promise<SignedCheckpoint> => {
    const { size, height } = await latestSize(deps);
    return notary().at(deps.store, size, size, height);
  };

  addResource(app, "/api/v1/checkpoint", {
    GET: async (request, reply) => {
      const query = request.query as Query;
      rejectUnknown(query, queryNames["GET /api/v1/checkpoint"]);
      const text = firstValue(query, "size");
      if (text === undefined) return sendCheckpoint(reply, await latest());
      const size = parseSize(text);
      const signed = await notary().at(deps.store, size, (await latestSize(deps)).size);
      return sendCheckpoint(reply, signed);
    },
  });
  addResource(app, "/api/v1/checkpoint/key", {
    GET: async (_request, reply) => sendText(reply, `${notary().verifierKey()}\n`, "no-cache"),
  });
  addResource(app, `${tlogPrefix}/checkpoint`, {
    GET: async (_request, reply) => sendCheckpoint(reply, await latest()),
  });
  const witness = (): Witness => {
    if (deps.witness === undefined) throw new LedgerError("NotFound", "This node witnesses no log (witness.logs)");
    return deps.witness;
  };
  addResource(app, "/api/v1/witness/key", {
    GET: async (_request, reply) => sendText(reply, `${witness().verifierKey()}\n`, "no-cache"),
  });
  addResource(app, "/api/v1/witness/add-checkpoint", {
    POST: async (request, reply) => {
      const answer = await witness().addCheckpoint(utf8Of(request.body));
      if (answer.kind === "cosigned") return sendText(reply, answer.lines, "no-store");
      // C2SP tlog-witness names this answer's body and type: the size cosigned last, not JSON.
      reply.header("cache-control", "no-store");
      return reply.code(409).header("content-type", "text/x.tlog.size").send(`${answer.size}\n`);
    },
  });
  addResource(app, `${tlogPrefix}/tile/*`, {
    GET: async (request: FastifyRequest, reply: FastifyReply) => {
      const path = (request.params as { "*": string })["*"];
      const tile = parseTilePath(path);
      if (tile === null) throw new LedgerError("NotFound", `Not a tile path: tile/${path} (docs/transparency.md, Tiles)`);
      const bytes = await readTile(deps.store, tile, (await historyHeadOf(deps.store)).size);
      reply.header("cache-control", tile.width === tileWidth ? fullTileCacheControl : partialTileCacheControl);
      return reply.code(200).header("content-type", "application/octet-stream").send(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length));
    },
  });
}

/**
 * The size of the latest checkpoint and a height after which the history had it: the last
 * committed block, or under CometBFT the last block whose app hash a signed header carries.
 */
async function latestSize(deps: TransparencyDeps): Promise<{ size: number; height: number }> {
  const head = await historyHeadOf(deps.store);
  if (deps.signedHeaders === undefined) return head;
  const latest = await deps.signedHeaders.latestSignedHeader();
  const height = Math.min(Number(latest.header.height) - 1, head.height);
  if (height < 1) return { size: 0, height: 0 };
  return { size: (await deps.store.getBlockHead(height))?.historySize ?? 0, height };
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/** A body as text; one that is not UTF-8 is no signed note (signed-note requires UTF-8). */
function utf8Of(body: unknown): string {
  if (!(body instanceof Uint8Array)) throw new LedgerError("WitnessMalformed", "add-checkpoint: the body is empty");
  try {
    return strictUtf8.decode(body);
  } catch {
    throw new LedgerError("WitnessMalformed", "add-checkpoint: the body is not UTF-8");
  }
}

function parseSize(text: string): number {
  if (!/^(0|[1-9][0-9]*)$/.test(text) || text.length > sizeCharsMax) {
    throw badParameter("size", `A tree size is a whole number of at most ${sizeCharsMax} digits, without leading zeroes`);
  }
  const size = Number(text);
  if (!Number.isSafeInteger(size)) throw new LedgerError("NotFound", `No checkpoint of size ${text}`);
  return size;
}

/** The note, and the height after which the history had its size: the app hash's (docs/transparency.md). */
function sendCheckpoint(reply: FastifyReply, signed: SignedCheckpoint): FastifyReply {
  reply.header("ledgerd-checkpoint-height", String(signed.height));
  return sendText(reply, signed.note, checkpointCacheControl);
}

function sendText(reply: FastifyReply, text: string, cacheControl: string): FastifyReply {
  reply.header("cache-control", cacheControl);
  return reply.code(200).header("content-type", "text/plain; charset=utf-8").send(Buffer.from(text, "utf8"));
}
