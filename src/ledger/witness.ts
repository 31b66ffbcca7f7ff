// ledgerd as a witness of other logs (docs/transparency.md "Witness", after C2SP tlog-witness
// and tlog-cosignature): for each log it follows (an origin and the log's Ed25519 key), it keeps
// the last checkpoint it cosigned, and cosigns a new one only when the log's signature verifies
// and a consistency proof shows that it extends that one. So it never cosigns two inconsistent
// checkpoints of one log, across restarts too: the state is persisted before the answer, and the
// check and the write run one request at a time.
import { LedgerError } from "../errors/ledgerError.js";
import { parseAddCheckpoint } from "../proofs/addCheckpointRequest.js";
import { parseCheckpointBody, type Checkpoint } from "../proofs/checkpoint.js";
import { cosignatureMessage, cosignatureOf, cosignatureVerifierKeyOf } from "../proofs/cosignature.js";
import { fromBase64, toBase64, toHex } from "../proofs/encoding.js";
import { emptyRoot, verifyConsistency } from "../proofs/merkle.js";
import { noteKeyId, openNote, signedNoteOf, splitNote, type NoteKey } from "../proofs/signedNote.js";

/** What a witness keeps per log: the size and root it cosigned last. */
export interface WitnessedHead {
  readonly size: number;
  /** Base64, as a checkpoint writes it. */
  readonly root: string;
}

/** Where the witness keeps its heads (node/witnessState.ts: a file written atomically). */
export interface WitnessState {
  read(): Record<string, WitnessedHead>;
  write(heads: Record<string, WitnessedHead>): Promise<void>;
}

/** The witness key: a cosigner's name, its Ed25519 public key and its signature. */
export interface CosignerKey extends NoteKey {
  sign(message: Uint8Array): Uint8Array;
}

export type AddCheckpointAnswer =
  | { readonly kind: "cosigned"; readonly lines: string }
  /** The old size is not the one cosigned last: the answer is that size (409). */
  | { readonly kind: "conflict"; readonly size: number };

export class Witness {
  /** The keys of each origin: the nodes of one chain sign one log, each with its own key. */
  readonly #logs: ReadonlyMap<string, readonly NoteKey[]>;
  readonly #cosigner: CosignerKey;
  readonly #state: WitnessState;
  readonly #now: () => number;
  /** One request at a time: the check against the last head and its update are one step. */
  #queue: Promise<unknown> = Promise.resolve();

  constructor(logs: readonly NoteKey[], deps: { readonly cosigner: CosignerKey; readonly state: WitnessState; readonly now: () => number }) {
    const byOrigin = new Map<string, NoteKey[]>();
    for (const log of logs) byOrigin.set(log.name, [...(byOrigin.get(log.name) ?? []), log]);
    this.#logs = byOrigin;
    this.#cosigner = deps.cosigner;
    this.#state = deps.state;
    this.#now = deps.now;
  }

  /** The cosignatures' verifier key (type 0x04), as a log that asks this witness pins it. */
  verifierKey(): string {
    return cosignatureVerifierKeyOf(this.#cosigner);
  }

  addCheckpoint(body: string): Promise<AddCheckpointAnswer> {
    const next = this.#queue.then(() => this.#add(body));
    this.#queue = next.catch(() => undefined);
    return next;
  }

  async #add(body: string): Promise<AddCheckpointAnswer> {
    const request = parseAddCheckpoint(body);
    if ("error" in request) throw new LedgerError("WitnessMalformed", `add-checkpoint: ${request.error}`);
    const checkpoint = this.#verified(request.note);
    // C2SP tlog-witness: the old size is at most the checkpoint's (400)...
    if (request.oldSize > checkpoint.size) throw new LedgerError("WitnessMalformed", `The old size ${request.oldSize} is past the checkpoint's ${checkpoint.size}`);
    const heads = this.#state.read();
    const last = heads[checkpoint.origin] ?? { size: 0, root: toBase64(emptyRoot) };
    // ... and the size cosigned last, or 409 with that size.
    if (request.oldSize !== last.size) return { kind: "conflict", size: last.size };
    checkConsistent(checkpoint, last, request.proof);
    await this.#state.write({ ...heads, [checkpoint.origin]: { size: checkpoint.size, root: toBase64(checkpoint.root) } });
    return { kind: "cosigned", lines: this.#cosign(splitNote(request.note)!.body) };
  }

  /** The checkpoint, when its origin is a log followed (404) and the log's key signed it (403). */
  #verified(note: string): Checkpoint {
    const split = splitNote(note);
    const checkpoint = split === null ? null : parseCheckpointBody(split.body);
    if (checkpoint === null) throw new LedgerError("WitnessMalformed", "add-checkpoint: the checkpoint is not a signed note of origin, size and root");
    const keys = this.#logs.get(checkpoint.origin);
    if (keys === undefined) throw new LedgerError("WitnessUnknownLog", `This witness follows no log of origin ${checkpoint.origin}`);
    // Every signature by a known key must verify (signed-note), and one at least is needed.
    const signedBy = keys.filter((key) => splitNote(note)!.signatures.some((s) => s.name === key.name && toHex(s.keyId) === toHex(noteKeyId(key))));
    if (signedBy.length === 0 || signedBy.some((key) => openNote(note, key) === null)) throw new LedgerError("WitnessBadSignature", `The checkpoint carries no valid signature by the key of ${checkpoint.origin}`);
    return checkpoint;
  }

  /** The signature line of a timestamped Ed25519 cosignature (tlog-cosignature v1). */
  #cosign(body: string): string {
    const timestamp = Math.floor(this.#now() / 1000);
    const signature = this.#cosigner.sign(cosignatureMessage(timestamp, body));
    const note = signedNoteOf("", [cosignatureOf(this.#cosigner, timestamp, signature)]);
    return note.slice(1);
  }
}

/** C2SP tlog-witness's checks of a checkpoint against the head cosigned last (422 when one fails). */
function checkConsistent(checkpoint: Checkpoint, last: WitnessedHead, proof: readonly Uint8Array[]): void {
  const root = toBase64(checkpoint.root);
  if (checkpoint.size === 0 && root !== toBase64(emptyRoot)) throw new LedgerError("WitnessInconsistent", "A checkpoint of size 0 must have the empty tree's root");
  if (last.size === 0) {
    if (proof.length > 0) throw new LedgerError("WitnessInconsistent", "With old size 0 the consistency proof must be empty");
    return;
  }
  if (last.size === checkpoint.size) {
    if (root !== last.root || proof.length > 0) throw new LedgerError("WitnessInconsistent", `The checkpoint of size ${checkpoint.size} has another root than the one cosigned`);
    return;
  }
  const lastRoot = fromBase64(last.root);
  if (!verifyConsistency(last.size, checkpoint.size, lastRoot, checkpoint.root, proof)) {
    throw new LedgerError("WitnessInconsistent", `The consistency proof from ${last.size} to ${checkpoint.size} does not verify`);
  }
}
