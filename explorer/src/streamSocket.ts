// One event stream (a WebSocket), reconnected with a doubling delay when it drops. The stream
// replays nothing (a subscriber receives the blocks committed after it connects,
// docs/http-api.md), so a reconnect only resumes; the page says so with its status.
import { streamReconnectDelayMsMax, streamReconnectDelayMsMin } from "./limits.js";

export type SocketStatus = "connecting" | "open" | "retrying" | "refused";

export interface StreamSocketOptions {
  readonly url: string;
  readonly onMessage: (data: unknown) => void;
  readonly onStatus: (status: SocketStatus) => void;
  /**
   * Give up (status `refused`) when the very first connection fails: a node without this
   * stream (BigchainDB has no `valid_blocks`) refuses it every time.
   */
  readonly giveUpIfFirstFails: boolean;
}

export class StreamSocket {
  private readonly options: StreamSocketOptions;
  private socket: WebSocket | null = null;
  private everOpened = false;
  private delayMs = streamReconnectDelayMsMin;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private closed = false;

  constructor(options: StreamSocketOptions) {
    this.options = options;
  }

  open(): void {
    this.closed = false;
    this.connect();
  }

  close(): void {
    this.closed = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.socket?.close();
    this.socket = null;
  }

  private connect(): void {
    this.options.onStatus(this.everOpened ? "retrying" : "connecting");
    let socket: WebSocket;
    try {
      socket = new WebSocket(this.options.url);
    } catch {
      // A malformed URL (a node advertising something odd): nothing to retry.
      this.options.onStatus("refused");
      return;
    }
    this.socket = socket;
    socket.onopen = () => {
      this.everOpened = true;
      this.delayMs = streamReconnectDelayMsMin;
      this.options.onStatus("open");
    };
    socket.onmessage = (event: MessageEvent) => this.receive(event.data);
    socket.onclose = () => this.dropped(socket);
  }

  private receive(data: unknown): void {
    if (typeof data !== "string") return;
    let value: unknown;
    try {
      value = JSON.parse(data);
    } catch {
      return; // Not an event of the API: ignored, as the node ignores what a client sends.
    }
    this.options.onMessage(value);
  }

  private dropped(socket: WebSocket): void {
    if (this.closed || socket !== this.socket) return;
    this.socket = null;
    if (!this.everOpened && this.options.giveUpIfFirstFails) {
      this.options.onStatus("refused");
      return;
    }
    this.options.onStatus("retrying");
    this.timer = setTimeout(() => this.connect(), this.delayMs);
    this.delayMs = Math.min(this.delayMs * 2, streamReconnectDelayMsMax);
  }
}
