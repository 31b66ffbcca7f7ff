// `ledgerd verify proof FILE` and `ledgerd verify consistency FILE` (docs/proofs.md): a proof as
// `GET /api/v1/proofs/...` answered it, checked by the verifier alone (src/proofs/verify.ts),
// with no node. With `--validators`, the signed header must carry more than two thirds of their
// power. Exit code 0 when it verifies, 1 when not (the reason is printed).
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
    process.exitCode = 1;
    return;
  }
  const trust = verdict.signed ? "signed by more than two thirds of the validators given" : "not checked against validators (give --validators)";
  console.log(`ok ${what}: app hash ${verdict.appHash || '""'} after height ${verdict.height}, ${trust}`);
}

export function registerVerifyCommand(program: Command): void {
  const verify = program.command("verify").description("Check a proof the API gave, with no node (docs/proofs.md)");
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
  ).action((file: string, flags: VerifyFlags) => {
    const proof = readJsonFile(file, "proof") as TransactionProof;
    report(verifyTransactionProof(proof, optionsOf(flags), flags.id), `transaction ${String(proof?.transaction_id)} at height ${String(proof?.block?.height)}`);
  });
  common(
    verify
      .command("consistency")
      .description("Check GET /api/v1/proofs/consistency's answer: the later history extends the earlier")
      .argument("<FILE>", "the proof, JSON; - for standard input"),
  ).action((file: string, flags: VerifyFlags) => {
    const proof = readJsonFile(file, "proof") as ConsistencyProof;
    report(verifyConsistencyProof(proof, optionsOf(flags)), `history after height ${String(proof?.from?.height)} extended to ${String(proof?.to?.height)}`);
  });
}
