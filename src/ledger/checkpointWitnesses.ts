// The witnesses a node asks to cosign its checkpoints (docs/transparency.md "Witnesses of the
// node's checkpoints", C2SP tlog-witness as the client): each is sent the new checkpoint with a
// consistency proof from the size it cosigned last (0 at first; a 409 tells the size it knows,
// and the request is sent again from there), and its cosignature is kept when it verifies with
// the witness's key. A quorum of them makes the checkpoint one a split view cannot pass.
import { toBase64, toHex } from "../proofs/encoding.js";
import { consistencyPath } from "../proofs/merkle.js";
import { cosignatureKeyId, verifyCosignature } from "../proofs/cosignature.js";
import { splitNote, type NoteKey } from "../proofs/signedNote.js";
import type { ChainReads } from "../store/store.js";
import { withHistoryNodes } from "./proofs.js";

/** Requests to one witness for one checkpoint: the first, and again after a 409 gives its size. */
export const witnessAttemptsMax = 3;

export interface CheckpointWitness {
  /** The witness's cosignature key (type 0x04). */
  readonly key: NoteKey;
  /** Its submission prefix: the request is `POST <url>/add-checkpoint`. */
  readonly url: string;
}

/** How a request reaches a witness (node/: fetch with a timeout); a failure is a rejection. */
export type WitnessTransport = (url: string, body: string) => Promise<{ readonly status: number; readonly body: string }>;

export class CheckpointWitnesses {
  readonly #witnesses: readonly CheckpointWitness[];
  readonly #quorum: number;
  readonly #post: WitnessTransport;
  /** The size each witness cosigned last, as far as this node knows. */
  readonly #known = new Map<string, number>();

  constructor(witnesses: readonly CheckpointWitness[], quorum: number, post: WitnessTransport) {
    this.#witnesses = witnesses;
    this.#quorum = quorum === 0 ? witnesses.length : quorum;
    this.#post = post;
  }

  /** The cosignature lines of the witnesses that cosigned `note` (of `size`), and whether they are a quorum. */
  async cosign(store: ChainReads, note: string, size: number): Promise<{ lines: string; quorum: boolean }> {
    const lines = await Promise.all(this.#witnesses.map((witness) => this.#ask(store, witness, note, size).catch(() => null)));
    const got = lines.filter((line): line is string => line !== null);
    return { lines: got.join(""), quorum: got.length >= this.#quorum };
  }

  /** The witness's valid cosignature line, or null when it gave none. */
  async #ask(store: ChainReads, witness: CheckpointWitness, note: string, size: number): Promise<string | null> {
    for (let attempt = 0; attempt < witnessAttemptsMax; attempt++) {
      const old = this.#known.get(witness.key.name) ?? 0;
      // A witness that cosigned a later size cannot cosign this one.
      if (old > size) return null;
      const proof = old === 0 ? [] : await withHistoryNodes(store, (nodes) => consistencyPath(nodes, old, size));
      const answer = await this.#post(`${witness.url}/add-checkpoint`, `old ${old}\n${proof.map((h) => `${toBase64(h)}\n`).join("")}\n${note}`);
      if (answer.status === 409 && /^(0|[1-9][0-9]{0,15})\n$/.test(answer.body)) {
        this.#known.set(witness.key.name, Number(answer.body));
        continue;
      }
      if (answer.status !== 200) return null;
      this.#known.set(witness.key.name, size);
      return validCosignature(witness.key, note, answer.body);
    }
    return null;
  }
}

/** The answer's line that is a valid cosignature of the note by `key`, or null. */
function validCosignature(key: NoteKey, note: string, answer: string): string | null {
  const split = splitNote(`${note}${answer}`);
  if (split === null) return null;
  const lines = answer.split("\n").filter((line) => line !== "");
  for (const line of lines) {
    const mine = splitNote(`${split.body}\n${line}\n`)?.signatures[0];
    if (mine === undefined || mine.name !== key.name || toHex(mine.keyId) !== toHex(cosignatureKeyId(key))) continue;
    if (verifyCosignature(key, split.body, mine.signature)) return `${line}\n`;
  }
  return null;
}
