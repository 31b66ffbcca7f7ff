// `ledgerd verify proof FILE` and `ledgerd verify consistency FILE` (docs/proofs.md): a proof as
// `GET /api/v1/proofs/...` answered it, checked by the verifier alone (src/proofs/verify.ts),
// with no node. With `--validators`, the signed header must carry more than two thirds of their
// power. Exit codes as cmp(1) and diff(1) have them, so that a script tells a proof that does
// not hold from one it could not check: 0 when it verifies, 1 when not (the reason is printed),
// 2 when it could not be checked (a file missing or not JSON, --validators no validator set, a
// usage error).
import { readFileSync } from "node:fs";
import type { Command } from "commander";
import {
  trustedValidatorsOf,
  verifyConsistencyProof,
  verifyTransactionProof,
  type ConsistencyProof,
  type TransactionProof,
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
}

/** A JSON file, or standard input for "-". */
function readJsonFile(file: string, what: string): unknown {
  const text = readFileSync(file === "-" ? 0 : file, "utf8");
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Error(`${what} ${file} is not JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function optionsOf(flags: VerifyFlags): VerifyOptions {
  return {
    ...(flags.validators === undefined ? {} : { validators: trustedValidatorsOf(readJsonFile(flags.validators, "--validators")) }),
    ...(flags.chainId === undefined ? {} : { chainId: flags.chainId }),
  };
}

function report(verdict: Verdict, what: string): void {
  if (!verdict.ok) {
    console.log(`FAIL ${verdict.reason}`);
    process.exitCode = exitFails;
    return;
  }
  const trust = verdict.signed ? "signed by more than two thirds of the validators given" : "not checked against validators (give --validators)";
  console.log(`ok ${what}: app hash ${verdict.appHash || '""'} after height ${verdict.height}, ${trust}`);
}

/** Runs a check; what keeps it from being made (a file, the validators) is trouble, not a FAIL. */
function checking(check: () => void): void {
  try {
    check();
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
      .option("--chain-id <ID>", "the chain the signed header must be of");
  common(
    verify
      .command("proof")
      .description("Check GET /api/v1/proofs/transactions/{id}'s answer: the transaction is in the ledger")
      .argument("<FILE>", "the proof, JSON; - for standard input")
      .option("--id <TXID>", "the transaction it must prove"),
  ).action((file: string, flags: VerifyFlags) =>
    checking(() => {
      const proof = readJsonFile(file, "proof") as TransactionProof;
      report(verifyTransactionProof(proof, optionsOf(flags), flags.id), `transaction ${String(proof?.transaction_id)} at height ${String(proof?.block?.height)}`);
    }),
  );
  common(
    verify
      .command("consistency")
      .description("Check GET /api/v1/proofs/consistency's answer: the later history extends the earlier")
      .argument("<FILE>", "the proof, JSON; - for standard input"),
  ).action((file: string, flags: VerifyFlags) =>
    checking(() => {
      const proof = readJsonFile(file, "proof") as ConsistencyProof;
      report(verifyConsistencyProof(proof, optionsOf(flags)), `history after height ${String(proof?.from?.height)} extended to ${String(proof?.to?.height)}`);
    }),
  );
}
