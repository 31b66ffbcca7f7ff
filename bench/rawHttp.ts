// A load generator's HTTP/1.1 client: one keep-alive connection, one request at a time, the
// request written as one prebuilt buffer and the answer read as status line, Content-Length and
// body. node:http's client costs ~130 µs of CPU per POST on this machine; on a 2-core box where
// the benchmark shares the cores with the nodes it measures, that is CPU taken from the nodes.
// Real clients run elsewhere, so the generator should be as light as a client can be.
import { connect, type Socket } from "node:net";

export interface RawAnswer {
  readonly status: number;
  readonly body: string;
}

/** Bytes of the answer head (status line and headers) read before giving up on it. */
const headBytesMax = 16 * 1024;

export class RawHttpConnection {
  private buffered: Buffer = Buffer.alloc(0);
  private waiting: { resolve: (answer: RawAnswer) => void; reject: (error: Error) => void } | null = null;
  private failure: Error | null = null;

  private constructor(
    private readonly socket: Socket,
    private readonly host: string,
  ) {
    socket.on("data", (chunk: Buffer) => this.receive(chunk));
    socket.on("error", (error) => this.fail(error));
    socket.on("close", () => this.fail(new Error(`connection to ${host} closed`)));
  }

  static open(hostPort: string): Promise<RawHttpConnection> {
    const [host, port] = hostPort.split(":") as [string, string];
    return new Promise((resolve, reject) => {
      const socket = connect({ host, port: Number(port), noDelay: true });
      socket.once("error", reject);
      socket.once("connect", () => {
        socket.off("error", reject);
        resolve(new RawHttpConnection(socket, hostPort));
      });
    });
  }

  /** POSTs a JSON body; resolves with the answer. One request at a time per connection. */
  post(path: string, body: Buffer): Promise<RawAnswer> {
    if (this.failure !== null) return Promise.reject(this.failure);
    if (this.waiting !== null) throw new Error("RawHttpConnection: one request at a time");
    const head =
      `POST ${path} HTTP/1.1\r\nHost: ${this.host}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${body.length}\r\n\r\n`;
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
      this.socket.write(Buffer.concat([Buffer.from(head, "latin1"), body]));
    });
  }

  close(): void {
    this.socket.destroy();
  }

  private receive(chunk: Buffer): void {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    const headEnd = this.buffered.indexOf("\r\n\r\n");
    if (headEnd < 0) {
      if (this.buffered.length > headBytesMax) this.fail(new Error("answer head too long"));
      return;
    }
    const head = this.buffered.toString("latin1", 0, headEnd);
    const status = Number(head.slice(9, 12));
    const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
    if (length === null) {
      this.fail(new Error(`answer without Content-Length: ${head.split("\r\n")[0]}`));
      return;
    }
    const end = headEnd + 4 + Number(length[1]);
    if (this.buffered.length < end) return;
    const body = this.buffered.toString("utf8", headEnd + 4, end);
    this.buffered = this.buffered.subarray(end);
    const waiting = this.waiting;
    this.waiting = null;
    if (waiting === null) this.fail(new Error("an answer nobody asked for"));
    else waiting.resolve({ status, body });
  }

  private fail(error: Error): void {
    this.failure ??= error;
    const waiting = this.waiting;
    this.waiting = null;
    waiting?.reject(error);
  }
}
