// Raw HTTP/1.1 over node:net for the tests whose subject is the socket: the bytes go out exactly
// as written (an HTTP client library would refuse or repair them), and the answer is read as
// the bytes that come back.
import { Buffer } from "node:buffer";
import { connect, type Socket } from "node:net";

export interface RawAnswer {
  readonly status: number;
  /** Header names in lower case. */
  readonly headers: ReadonlyMap<string, string>;
  readonly body: string;
}

export interface RawExchange {
  /** The first whole answer (by its Content-Length). */
  readonly answer: Promise<RawAnswer>;
  /** Resolves when the server ends or closes the connection. */
  readonly closed: Promise<void>;
  readonly socket: Socket;
}

/** Sends `bytes` on a new connection to 127.0.0.1:`port` and reads the answer. */
export function rawExchange(port: number, bytes: string | Buffer): RawExchange {
  const socket = connect(port, "127.0.0.1");
  let received = Buffer.alloc(0);
  let settle: ((answer: RawAnswer) => void) | undefined;
  let fail: ((error: Error) => void) | undefined;
  const answer = new Promise<RawAnswer>((resolve, reject) => {
    settle = resolve;
    fail = reject;
  });
  const closed = new Promise<void>((resolve) => {
    socket.once("end", resolve);
    socket.once("close", () => {
      resolve();
      fail?.(new Error(`closed without a whole answer: ${JSON.stringify(received.toString("latin1"))}`));
    });
  });
  socket.on("error", () => {});
  socket.on("data", (chunk: Buffer) => {
    received = Buffer.concat([received, chunk]);
    const parsed = parseAnswer(received);
    if (parsed !== null) {
      settle?.(parsed);
      fail = undefined;
    }
  });
  socket.write(bytes);
  return { answer, closed, socket };
}

/** An answer when `bytes` hold a whole one (head and Content-Length body), else null. */
export function parseAnswer(bytes: Buffer): RawAnswer | null {
  const end = bytes.indexOf("\r\n\r\n");
  if (end < 0) return null;
  const [statusLine, ...lines] = bytes.subarray(0, end).toString("latin1").split("\r\n");
  const headers = new Map<string, string>();
  for (const line of lines) {
    const colon = line.indexOf(":");
    headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  const length = Number(headers.get("content-length") ?? "0");
  if (bytes.length < end + 4 + length) return null;
  const body = bytes.subarray(end + 4, end + 4 + length).toString("utf8");
  return { status: Number(statusLine!.split(" ")[1]), headers, body };
}
