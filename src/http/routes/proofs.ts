// The proofs (docs/proofs.md, docs/http-api.md "Proofs"): a transaction's inclusion proof and
// the history's consistency between two heights, built by the ledger from the store
// (ledger/proofs.ts). Under CometBFT each proof carries the signed header and commit of the
// block whose header holds the app hash it reaches, kept in the store (or, not stored yet, read
// from CometBFT's RPC), so a client that knows the validator set needs to trust no node; the
// anchor is then the last height whose app hash a header carries (the header of height h + 1 holds the app hash after h).
import type { FastifyInstance } from "fastify";
import { LedgerError } from "../../errors/ledgerError.js";
import { consistencyProof, transactionProof } from "../../ledger/proofs.js";
import { readBounded } from "../../ledger/boundedReads.js";
import { cometValidatorJson, validatorChangeHeadersAtOnceMax, validatorChangePlaces } from "../../ledger/validatorChanges.js";
import { proofVersion, type SignedHeader } from "../../proofs/verify.js";
import type { ChainReads } from "../../store/store.js";
import { badParameter, firstValue, parseBlockHeight, rejectUnknown, requiredValue, type Query } from "../parameters.js";
import { queryNames } from "../queryNames.js";
import { addResource, type RouteHandler } from "../resource.js";
import { sendJson } from "../reply.js";

/** CometBFT's signed headers, for the proofs (engine/cometbft/signedHeaders.ts). */
export interface SignedHeaders {
  /**
   * CometBFT's last block's header and its commit: its height − 1 is the last height whose app
   * hash a signed header carries, and it is that height's header.
   */
  latestSignedHeader(): Promise<SignedHeader>;
  /** The header of `height` and the commit that signed it. */
  signedHeader(height: number): Promise<SignedHeader>;
}

/**
 * What one request knows of the signed headers: the last one, read once, and the height whose
 * app hash it carries. A proof to that height (the default anchor) needs no second RPC call.
 */
interface SignedView {
  readonly headers: SignedHeaders;
  readonly latest: SignedHeader;
  readonly last: number;
}

export function registerProofRoutes(app: FastifyInstance, deps: { readonly store: ChainReads; readonly signedHeaders?: SignedHeaders }): void {
  const signed = deps.signedHeaders;
  const viewOf = async (): Promise<SignedView | null> => {
    if (signed === undefined) return null;
    const latest = await signed.latestSignedHeader();
    return { headers: signed, latest, last: Number(latest.header.height) - 1 };
  };
  /** The height asked for, or the last one a proof can reach (under CometBFT, the last signed). */
  const anchorOf = async (query: Query, name: string, view: SignedView | null): Promise<number | undefined> => {
    const text = firstValue(query, name);
    const asked = text === undefined ? undefined : proofHeight(name, text);
    if (view === null) return asked;
    if (asked !== undefined && asked > view.last) {
      throw new LedgerError("ProofNotYetSigned", `No signed header carries the app hash after height ${asked} yet (the last is after ${view.last}); retry after the next block`);
    }
    // CometBFT may be ahead of this process's view of the store (a node that is catching up).
    return asked ?? Math.min(view.last, (await deps.store.getChainState()).height);
  };
  /**
   * The header that carries the app hash after `height` (that of `height + 1`): the store's copy
   * (engine/cometbft/signedHeaderKeeper.ts), which outlives CometBFT's pruning, else CometBFT's.
   */
  const headerFor = async (height: number, view: SignedView | null): Promise<SignedHeader | null> => {
    if (view === null) return null;
    if (height === view.last) return view.latest;
    const stored = await deps.store.getSignedHeader(height + 1);
    return stored === null ? view.headers.signedHeader(height + 1) : (JSON.parse(stored) as SignedHeader);
  };

  /**
   * The last header a light block may be (`to_height`, default the last): signed, and of a
   * height whose set the store has recorded (the set of header h is the store's after h - 1).
   */
  const lastHeaderOf = async (query: Query, view: SignedView): Promise<number> => {
    const text = firstValue(query, "to_height");
    const last = Math.min(view.last, (await deps.store.getChainState()).height) + 1;
    const asked = text === undefined ? last : proofHeight("to_height", text);
    if (asked > last) throw new LedgerError("ProofNotYetSigned", `No signed header of height ${asked} yet (the last is ${last}); retry after the next block`);
    return asked;
  };

  addResource(app, "/api/v1/proofs/transactions/:transaction_id", {
    GET: retryWhenNotYetSigned(async (request, reply) => {
      const query = request.query as Query;
      rejectUnknown(query, queryNames["GET /api/v1/proofs/transactions/{transaction_id}"]);
      const id = (request.params as { transaction_id: string }).transaction_id;
      if (!/^[0-9a-f]{64}$/.test(id)) throw new LedgerError("NotFound", "Not found");
      const view = await viewOf();
      const asked = firstValue(query, "height") !== undefined;
      const proof = await transactionProof(deps.store, id, await anchorOf(query, "height", view), asked);
      const body = { ...proof, signed_header: await headerFor(proof.height, view) };
      if (view !== null) reply.header("link", `</api/v1/proofs/validator-changes?to_height=${proof.height + 1}>; rel="validator-changes"`);
      return sendJson(reply, 200, JSON.stringify(body));
    }),
  });

  addResource(app, "/api/v1/proofs/validator-changes", {
    GET: retryWhenNotYetSigned(async (request, reply) => {
      const query = request.query as Query;
      rejectUnknown(query, queryNames["GET /api/v1/proofs/validator-changes"]);
      const fromText = firstValue(query, "from_height");
      const from = fromText === undefined ? 1 : proofHeight("from_height", fromText);
      const view = await viewOf();
      if (view === null) throw new LedgerError("NoSignedHeaders", "The solo engine signs no headers: check a solo node's proofs against an app hash you trust (docs/proofs.md)");
      const to = await lastHeaderOf(query, view);
      if (from > to) throw badParameter("from_height", `Height ${from} is after to_height (${to})`);
      const { places, next } = await validatorChangePlaces(deps.store, from, to);
      const lightBlocks = await readBounded(places, validatorChangeHeadersAtOnceMax, async (place) => ({
        signed_header: await headerFor(place.height - 1, view),
        validator_set: { validators: place.validators.map(cometValidatorJson) },
      }));
      const chainId = view.latest.header.chain_id;
      const body = { version: proofVersion, chain_id: chainId, from_height: from, to_height: to, light_blocks: lightBlocks, next_from_height: next };
      return sendJson(reply, 200, JSON.stringify(body));
    }),
  });

  addResource(app, "/api/v1/proofs/consistency", {
    GET: retryWhenNotYetSigned(async (request, reply) => {
      const query = request.query as Query;
      rejectUnknown(query, queryNames["GET /api/v1/proofs/consistency"]);
      const from = proofHeight("from", requiredValue(query, "from"));
      const view = await viewOf();
      const to = (await anchorOf(query, "to", view)) ?? (await deps.store.getChainState()).height;
      if (from > to) {
        if (firstValue(query, "to") !== undefined) throw badParameter("from", `Height ${from} is after to (${to})`);
        if (view === null) throw new LedgerError("NotFound", `No block at height ${from}`);
        throw new LedgerError("ProofNotYetSigned", `No signed header carries the app hash after height ${from} yet; retry after the next block`);
      }
      const proof = await consistencyProof(deps.store, from, to);
      const body = {
        version: proofVersion,
        from: { ...proof.from, signed_header: await headerFor(proof.from.height, view) },
        to: { ...proof.to, signed_header: await headerFor(proof.to.height, view) },
        path: proof.path,
      };
      return sendJson(reply, 200, JSON.stringify(body));
    }),
  });
}

/** A block interval is about a second: when the header is not signed yet, `Retry-After: 1`. */
const notYetSignedRetrySeconds = 1;

function retryWhenNotYetSigned(handler: RouteHandler): RouteHandler {
  return async (request, reply) => {
    try {
      return await handler(request, reply);
    } catch (error) {
      if (error instanceof LedgerError && error.code === "ProofNotYetSigned") reply.header("retry-after", String(notYetSignedRetrySeconds));
      throw error;
    }
  };
}

/** A height a proof reaches; past 2^53, a height no chain reaches (a block a second would take 285 million years). */
function proofHeight(name: string, text: string): number {
  const height = parseBlockHeight(name, text);
  if (height === null) throw new LedgerError("NotFound", `No block at height ${text}`);
  return height;
}
