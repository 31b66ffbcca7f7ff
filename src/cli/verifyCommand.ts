// `ledgerd verify proof FILE` and `ledgerd verify consistency FILE` (docs/proofs.md): a proof as
// `GET /api/v1/proofs/...` answered it, checked by the verifier alone (src/proofs/verify.ts),
// with no node. With `--validators`, the signed header must carry more than two thirds of their
// power. Exit codes as cmp(1) and diff(1) have them, so that a script tells a proof that does
// not hold from one it could not check: 0 when it verifies, 1 when not (the reason is printed),
// 2 when it could not be checked (a file missing or not JSON, --validators no validator set, a
// usage error). With `--genesis` (or `--trusted-height` and `--trusted-validators`) the verifier
// follows the validator set from that root through its changes to the proof's header, with the
// light blocks of `--validator-changes FILE` or fetched from `--node URL`
// (docs/proofs.md "Across validator changes").
import { readFileSync } from "node:fs";
import type { Command } from "commander";
import {
  trustRootOf,
  trustedValidatorsOf,
  verifyConsistencyProof,
  verifyTransactionProof,
  type ConsistencyProof,
  type LightBlock,
  type TransactionProof,
  type TrustRoot,
  type Verdict,
  type VerifyOptions,
} from "../proofs/verify.js";

/** The proof does not hold. */
const exitFails = 1;
/** The proof could not be checked. */
const exitTrouble = 2;

interface VerifyFlags {
  validators?: string;
  chainId?: string;
  id?: string;
  genesis?: string;
  trustedHeight?: string;
  trustedValidators?: string;
  trustedTime?: string;
  node?: string;
  validatorChanges?: string;
  trustPeriod?: string;
}

/** Pages of validator changes fetched from a node at most (each up to 100 changes). */
const changePagesMax = 1_000;
const durationUnitsMs: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** A JSON file, or standard input for "-". */
function readJsonFile(file: string, what: string): unknown {
  const text = readFileSync(file === "-" ? 0 : file, "utf8");
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Error(`${what} ${file} is not JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** `336h`, `14d`, `90m`, `30s` or `500ms` in ms. */
function durationMs(text: string): number {
  const m = /^([0-9]{1,12})(ms|s|m|h|d)$/.exec(text);
  if (m === null) throw new Error(`--trust-period ${text} is not a duration such as 336h, 14d or 90m`);
  return Number(m[1]) * durationUnitsMs[m[2]!]!;
}

/** The root of trust the flags name, if any: a genesis, or a height and the set that signs it. */
function rootOf(flags: VerifyFlags): TrustRoot | undefined {
  if (flags.genesis !== undefined) {
    if (flags.trustedHeight !== undefined || flags.trustedValidators !== undefined) throw new Error("--genesis or --trusted-height: one root of trust");
    return trustRootOf(readJsonFile(flags.genesis, "--genesis"));
  }
  if (flags.trustedHeight === undefined && flags.trustedValidators === undefined) return undefined;
  if (flags.trustedHeight === undefined || flags.trustedValidators === undefined || flags.chainId === undefined) {
    throw new Error("--trusted-height, --trusted-validators and --chain-id go together");
  }
  const height = Number(flags.trustedHeight);
  if (!Number.isSafeInteger(height) || height < 1) throw new Error(`--trusted-height ${flags.trustedHeight} is not a height`);
  const validators = trustedValidatorsOf(readJsonFile(flags.trustedValidators, "--trusted-validators"));
  return { chainId: flags.chainId, height, validators, ...(flags.trustedTime === undefined ? {} : { time: flags.trustedTime }) };
}

/** The light blocks of a saved answer of GET /api/v1/proofs/validator-changes (or a list of them). */
function lightBlocksOf(saved: unknown): LightBlock[] {
  const answers = Array.isArray(saved) && saved.every((a) => Array.isArray((a as { light_blocks?: unknown })?.light_blocks)) ? saved : [saved];
  const blocks = answers.flatMap((a) => (a as { light_blocks?: unknown })?.light_blocks ?? a);
  if (!Array.isArray(blocks)) throw new Error("--validator-changes holds no light_blocks");
  return blocks as LightBlock[];
}

/** Every page of the node's validator changes from `from` to `to`. */
async function fetchChanges(node: string, from: number, to: number): Promise<LightBlock[]> {
  const blocks: LightBlock[] = [];
  let next: number | null = from;
  for (let page = 0; next !== null && page < changePagesMax; page++) {
    const url = new URL(`/api/v1/proofs/validator-changes?from_height=${next}&to_height=${to}`, node);
    const response = await fetch(url);
    if (!response.ok) throw new Error(`${url.href} answered ${response.status}: ${await response.text()}`);
    const answer = (await response.json()) as { light_blocks: LightBlock[]; next_from_height: number | null };
    blocks.push(...answer.light_blocks);
    next = answer.next_from_height;
  }
  return blocks;
}

/** The options the flags ask for; `upTo`: the last header the proof carries (its height + 1). */
async function optionsOf(flags: VerifyFlags, upTo: number): Promise<VerifyOptions> {
  const root = rootOf(flags);
  const chainId = flags.chainId ?? root?.chainId;
  const base = chainId === undefined ? {} : { chainId };
  if (root === undefined) {
    if (flags.node !== undefined || flags.validatorChanges !== undefined) throw new Error("--node and --validator-changes need --genesis or --trusted-height");
    return { ...base, ...(flags.validators === undefined ? {} : { validators: trustedValidatorsOf(readJsonFile(flags.validators, "--validators")) }) };
  }
  if (flags.validators !== undefined) throw new Error("--validators is one set to trust; with --genesis or --trusted-height the set is followed from there");
  const validatorChanges = flags.validatorChanges !== undefined
    ? lightBlocksOf(readJsonFile(flags.validatorChanges, "--validator-changes"))
    : flags.node !== undefined ? await fetchChanges(flags.node, root.height, upTo) : [];
  const period = flags.trustPeriod === undefined ? {} : { trustPeriodMs: durationMs(flags.trustPeriod), nowMs: Date.now() };
  return { ...base, trust: { root, validatorChanges, ...period } };
}

function report(verdict: Verdict, what: string): void {
  if (!verdict.ok) {
    console.log(`FAIL ${verdict.reason}`);
    process.exitCode = exitFails;
    return;
  }
  const t = verdict.trusted;
  const trust = t !== undefined
    ? `signed by validator set ${t.validatorsHash} at height ${t.height}, followed through ${t.changes} set change(s) from the trusted set ${t.rootValidatorsHash} of height ${t.rootHeight}`
    : verdict.signed ? "signed by more than two thirds of the validators given" : "not checked against validators (give --genesis or --validators)";
  console.log(`ok ${what}: app hash ${verdict.appHash || '""'} after height ${verdict.height}, ${trust}`);
}

/** Runs a check; what keeps it from being made (a file, the validators) is trouble, not a FAIL. */
async function checking(check: () => Promise<void>): Promise<void> {
  try {
    await check();
  } catch (error) {
    console.error(`ledgerd verify: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = exitTrouble;
  }
}

export function registerVerifyCommand(program: Command): void {
  const verify = program
    .command("verify")
    .description("Check a proof the API gave, with no node (docs/proofs.md)")
    // Usage errors too (subcommands inherit it); help is not an error.
    .exitOverride((error) => process.exit(error.exitCode === 0 ? 0 : exitTrouble));
  const common = (command: Command): Command =>
    command
      .option("--validators <FILE>", "the validator set to trust: GET /api/v1/validators's answer, a genesis.json, or CometBFT's /validators")
      .option("--chain-id <ID>", "the chain the signed header must be of")
      .option("--genesis <FILE>", "trust the genesis.json's validators and follow the set through its changes to the proof")
      .option("--trusted-height <H>", "instead of --genesis: trust --trusted-validators to sign height H (with --chain-id)")
      .option("--trusted-validators <FILE>", "the set trusted at --trusted-height, in --validators's forms")
      .option("--trusted-time <TIME>", "the time of the trusted root (RFC 3339), for --trust-period")
      .option("--node <URL>", "fetch the validator changes from this node (GET /api/v1/proofs/validator-changes)")
      .option("--validator-changes <FILE>", "the validator changes, as that route answered them (saved)")
      .option("--trust-period <DURATION>", "refuse a trusted header older than this (336h, 14d) at the time now; default none");
  common(
    verify
      .command("proof")
      .description("Check GET /api/v1/proofs/transactions/{id}'s answer: the transaction is in the ledger")
      .argument("<FILE>", "the proof, JSON; - for standard input")
      .option("--id <TXID>", "the transaction it must prove"),
  ).action((file: string, flags: VerifyFlags) =>
    checking(async () => {
      const proof = readJsonFile(file, "proof") as TransactionProof;
      const options = await optionsOf(flags, Number(proof?.height) + 1);
      report(verifyTransactionProof(proof, options, flags.id), `transaction ${String(proof?.transaction_id)} at height ${String(proof?.block?.height)}`);
    }),
  );
  common(
    verify
      .command("consistency")
      .description("Check GET /api/v1/proofs/consistency's answer: the later history extends the earlier")
      .argument("<FILE>", "the proof, JSON; - for standard input"),
  ).action((file: string, flags: VerifyFlags) =>
    checking(async () => {
      const proof = readJsonFile(file, "proof") as ConsistencyProof;
      report(verifyConsistencyProof(proof, await optionsOf(flags, Number(proof?.to?.height) + 1)), `history after height ${String(proof?.from?.height)} extended to ${String(proof?.to?.height)}`);
    }),
  );
}
