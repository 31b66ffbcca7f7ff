// A transaction's inclusion proof (docs/proofs.md), shown and checked here in the browser with
// ledgerd's own verifier (src/proofs/verify.ts, pure, no Node module). The node is not trusted
// for the verdict: the page recomputes the roots and the app hash. A node without proofs
// (BigchainDB, or an endpoint that answers 404) gets no section at all. Given a genesis it trusts
// (pasted or from a file), the page follows the validator set from it through the elections
// since, with the node's light blocks (docs/proofs.md "Across validator changes"), checked not trusted.
import { useState } from "preact/hooks";
import type { ValidatorChanges } from "../../src/client/client.js";
import { trustRootOf, trustedValidatorsOf, verifyTransactionProof, type LightBlock, type TransactionProof, type Verdict } from "../../src/proofs/verify.js";
import type { Answer, Api } from "./api.js";
import { validatorChangePagesMax } from "./limits.js";
import { Json, Notice, Section, useAnswer, useApi } from "./ui.js";
import { isObject } from "./wire.js";

/** 409: a chain that keeps BigchainDB's app hash (docs/proofs.md "Upgrading"). */
const proofsUnavailableStatus = 409;
/** 503: no signed header carries the app hash after the transaction yet (CometBFT). */
const proofNotYetSignedStatus = 503;

type Outcome = { readonly verdict: Verdict; readonly against: "app hash only" | "validators" | "genesis" } | { readonly error: string };

/** The node's light blocks from `from` to `to`, every page; or why not. */
async function validatorChanges(api: Api, from: number, to: number): Promise<LightBlock[] | string> {
  const blocks: LightBlock[] = [];
  let next: number | null = from;
  for (let page = 0; next !== null && page < validatorChangePagesMax; page++) {
    const fromHeight: number = next;
    const answer: Answer<ValidatorChanges> = await api.ask((client) => client.getValidatorChanges(fromHeight, to));
    if (!answer.ok) return `the validator changes could not be read (${answer.message})`;
    blocks.push(...answer.value.light_blocks);
    next = answer.value.next_from_height;
  }
  return blocks;
}

/** Verifies `proof` from a genesis the user trusts, following the set to the proof's header. */
async function checkFromGenesis(api: Api, proof: TransactionProof, id: string, genesisText: string): Promise<Outcome> {
  try {
    const root = trustRootOf(JSON.parse(genesisText));
    const blocks = await validatorChanges(api, root.height, proof.height + 1);
    if (typeof blocks === "string") return { error: blocks };
    return { verdict: verifyTransactionProof(proof, { trust: { root, validatorChanges: blocks } }, id), against: "genesis" };
  } catch (error) {
    return { error: `the genesis: ${error instanceof Error ? error.message : String(error)}` };
  }
}

/**
 * Verifies `proof`. Without a signed header (the solo engine) only steps 1-3 can be checked.
 * With one, the signatures are counted against the set the node itself reports: the only set
 * a page that trusts nothing else has at hand, which the page says.
 */
async function check(api: Api, proof: TransactionProof, id: string, genesis: string): Promise<Outcome> {
  if (proof.signed_header !== null && genesis.trim() !== "") return checkFromGenesis(api, proof, id, genesis);
  if (proof.signed_header === null) return { verdict: verifyTransactionProof(proof, {}, id), against: "app hash only" };
  const answer = await api.ask((client) => client.getValidators());
  if (!answer.ok) return { error: `the validator set could not be read (${answer.message})` };
  try {
    const validators = trustedValidatorsOf(answer.value);
    return { verdict: verifyTransactionProof(proof, { validators }, id), against: "validators" };
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}

const hashes = (n: number): string => (n === 1 ? "1 hash" : `${n} hashes`);

/** Whether `v` has the fields the page shows (the verifier checks everything else itself). */
function isProofShape(v: unknown): v is TransactionProof {
  if (!isObject(v) || !isObject(v.block) || !isObject(v.history) || typeof v.app_hash !== "string") return false;
  const counts = [v.height, v.block.height, v.block.index, v.block.size, v.history.index, v.history.size];
  const signed = v.signed_header;
  const headerOk = signed === null || (isObject(signed) && isObject(signed.header) && isObject(signed.commit));
  return counts.every(Number.isSafeInteger) && Array.isArray(v.block.path) && Array.isArray(v.history.path) && headerOk;
}

function OutcomeText({ outcome }: { outcome: Outcome }) {
  if ("error" in outcome) return <p class="bad">Not checked: {outcome.error}</p>;
  const { verdict } = outcome;
  if (!verdict.ok) return <p class="bad">Failed ✗: {verdict.reason}</p>;
  const t = verdict.trusted;
  if (t !== undefined) {
    return (
      <p class="good">
        Verified ✓: the proof reaches app hash <code class="wrap">{verdict.appHash}</code> after height {verdict.height}, signed by validator set{" "}
        <code class="wrap">{t.validatorsHash}</code> (height {t.height}), which the page followed through {t.changes} set change{t.changes === 1 ? "" : "s"} from the
        genesis you gave, whose set <code class="wrap">{t.rootValidatorsHash}</code> signs from height {t.rootHeight}.
      </p>
    );
  }
  const scope =
    outcome.against === "validators"
      ? "and validators holding more than two thirds of the power of the set this node reports (GET /api/v1/validators) signed it. Trust that only as far as you trust that set: compare it with the network's genesis or another node."
      : "This node carries no signed header (a solo engine signs none): compare the app hash with one you trust.";
  return (
    <p class="good">
      Verified ✓: the proof reaches app hash <code class="wrap">{verdict.appHash}</code> after height {verdict.height}
      {outcome.against === "validators" ? ", " : ". "}
      {scope}
    </p>
  );
}

function ProofDetails({ proof, id }: { proof: TransactionProof; id: string }) {
  const api = useApi();
  const [outcome, setOutcome] = useState<Outcome | "checking" | null>(null);
  const [genesis, setGenesis] = useState("");
  const run = (): void => {
    setOutcome("checking");
    void check(api, proof, id, genesis).then(setOutcome);
  };
  const readFile = (event: Event): void => {
    const file = (event.currentTarget as HTMLInputElement).files?.[0];
    if (file !== undefined) void file.text().then(setGenesis);
  };
  return (
    <>
      <dl class="facts">
        <dt>In block</dt>
        <dd>
          {proof.block.height}, transaction {proof.block.index + 1} of {proof.block.size} ({hashes(proof.block.path.length)})
        </dd>
        <dt>In history</dt>
        <dd>
          block {proof.history.index + 1} of {proof.history.size} ({hashes(proof.history.path.length)})
        </dd>
        <dt>App hash</dt>
        <dd>
          <code class="wrap">{proof.app_hash}</code> after height {proof.height}
        </dd>
        <dt>Signed header</dt>
        <dd>{proof.signed_header === null ? "none (solo engine)" : `height ${String(proof.signed_header.header.height)} of chain ${String(proof.signed_header.header.chain_id)}`}</dd>
      </dl>
      {proof.signed_header === null ? null : (
        <details>
          <summary>Trust a genesis, not this node's validator set</summary>
          <label for="proof-genesis">Genesis (genesis.json), pasted or from a file</label>
          <textarea id="proof-genesis" rows={4} spellcheck={false} value={genesis} onInput={(e) => setGenesis((e.currentTarget as HTMLTextAreaElement).value)} />
          <input type="file" accept=".json,application/json" aria-label="Genesis file" onChange={readFile} />
        </details>
      )}
      <button type="button" onClick={run} disabled={outcome === "checking"}>
        Check proof
      </button>
      <div role="status" aria-live="polite">
        {outcome === null ? null : outcome === "checking" ? <p>Checking…</p> : <OutcomeText outcome={outcome} />}
      </div>
    </>
  );
}

export function ProofCheck({ id }: { id: string }) {
  const api = useApi();
  const loaded = useAnswer(() => api.ask<unknown>((client) => client.getProof(id)), id);
  if (loaded.loading) return null;
  const { answer } = loaded;
  if (answer.ok) {
    return (
      <Section title="Proof of inclusion" id="proof">
        {isProofShape(answer.value) ? (
          <ProofDetails proof={answer.value} id={id} />
        ) : (
          <>
            <Notice>The node's proof is not in a format this page reads (docs/proofs.md, version 1):</Notice>
            <Json value={answer.value} label="Proof (JSON)" />
          </>
        )}
      </Section>
    );
  }
  if (answer.status === proofsUnavailableStatus) {
    return (
      <Section title="Proof of inclusion" id="proof">
        <Notice>This chain keeps BigchainDB's app hash, which proves nothing: it serves no proofs.</Notice>
      </Section>
    );
  }
  if (answer.status === proofNotYetSignedStatus) {
    return (
      <Section title="Proof of inclusion" id="proof">
        <Notice>No signed header carries this transaction's app hash yet; reload in a moment.</Notice>
      </Section>
    );
  }
  return null; // No proof endpoint (a BigchainDB node): nothing to show.
}
