// The load of `bench httpLayer`, in a process of its own so that the bench's process measures only
// the server: `connections` keep-alive connections (rawHttp.ts), each POSTing the same body again
// as soon as its answer is in, until the parent says stop; then it reports how many were answered.
import { readFileSync } from "node:fs";
import { RawHttpConnection } from "./rawHttp.js";

const [hostPort, bodyFile, connectionsText] = process.argv.slice(2) as [string, string, string];
const body = readFileSync(bodyFile);
const connections = await Promise.all(Array.from({ length: Number(connectionsText) }, () => RawHttpConnection.open(hostPort)));
let stopping = false;
let answered = 0;
process.on("message", () => {
  stopping = true;
});
await Promise.all(
  connections.map(async (connection) => {
    while (!stopping) {
      const answer = await connection.post("/api/v1/transactions?mode=async", body);
      if (answer.status !== 202) throw new Error(`answered ${answer.status}: ${answer.body}`);
      answered++;
    }
    connection.close();
  }),
);
process.send?.({ answered }, () => process.exit(0));
