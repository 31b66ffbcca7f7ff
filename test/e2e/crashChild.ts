// The child of the crash test: a solo node on a data dir (SQLite) or a PostgreSQL database, driven in `commit` mode by a number of
// concurrent clients; it prints `ACK <id>` once a transaction's block is durable. The parent
// kills it with SIGKILL at random moments.
import { LedgerError } from "../../src/errors/ledgerError.js";
import type { JsonObject } from "../../src/json/jsonValue.js";
import type { Keypair } from "../../src/transaction/builders/makeKeypair.js";
import { makeRandomKeypair } from "../../src/transaction/builders/makeRandomKeypair.js";
import { bytesOf, create, transfer } from "../helpers/txFactory.js";
import { startSoloStack } from "../helpers/soloNode.js";

const [dir, postgresUrl] = process.argv.slice(2);
if (dir === undefined) throw new Error("usage: crashChild <dir> [postgres-url]");
const clients = 16;
// A failed block stops the engine; said on stderr, which the parent shows when a round fails.
const onFatal = (error: unknown): void => void process.stderr.write(`engine stopped: ${error instanceof Error ? error.stack : String(error)}\n`);
const stack = await startSoloStack({ blockIntervalMs: 5 }, { dir, onFatal, ...(postgresUrl === undefined ? {} : { postgresUrl }) }, 0);

// What the clients were refused with, each change once, timed: the parent shows it when a round
// fails (a round on PostgreSQL once saw no commit for 20 s after the database returned).
const started = Date.now();
let lastSaid = "";
function say(line: string): void {
  if (line === lastSaid) return;
  lastSaid = line;
  process.stderr.write(`${Date.now() - started} ms ${line}\n`);
}

async function client(): Promise<void> {
  for (;;) {
    let owner: Keypair = makeRandomKeypair();
    let tx: JsonObject = create(owner, 3n);
    for (let hop = 0; hop < 5; hop++) {
      try {
        await stack.engine.broadcast(bytesOf(tx), "commit");
      } catch (error) {
        if (error instanceof LedgerError) {
          say(`refused: ${error.code}: ${error.message}`);
          break;
        }
        throw error;
      }
      process.stdout.write(`ACK ${tx["id"] as string}\n`);
      say("committed");
      const next = makeRandomKeypair();
      tx = transfer([{ tx, outputIndex: 0 }], [owner], [{ publicKeys: [next.publicKey], amount: 3n }]);
      owner = next;
    }
  }
}

/** How often the reader below asks the database, between its reads. */
const readerPauseMs = 20;

/**
 * A reader beside the clients, as the HTTP API's GETs would be. While the database is down the
 * writing clients may all be waiting in `commit` mode on a block the engine holds (it holds it
 * until the database returns, and says nothing): a read is what is refused at once, and tells
 * the parent that the node saw the database go.
 */
async function reader(): Promise<void> {
  for (;;) {
    try {
      await stack.store.getChainState();
    } catch (error) {
      if (!(error instanceof LedgerError)) throw error;
      say(`refused: ${error.code}: ${error.message}`);
    }
    await new Promise((resolve) => setTimeout(resolve, readerPauseMs));
  }
}

process.stdout.write(`READY ${stack.ledger.info().height}\n`);
await Promise.all([...Array.from({ length: clients }, client), ...(postgresUrl === undefined ? [] : [reader()])]);
