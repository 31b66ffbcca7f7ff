// `GET /metrics` on `metrics.bind`, in the node's process: a plain node:http server, apart from
// the API, so a scrape never waits behind API traffic and the metrics are not public unless
// the operator binds them so. Its errors are the API's JSON (docs/compatibility.md #2): another
// method on /metrics is a 405 with `Allow`, any other path a 404, a failed gathering a 500.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { LedgerError } from "../errors/ledgerError.js";
import { answerWithError } from "../httpWire/errorAnswer.js";
import { methodNotAllowedMessage, unknownPathMessage } from "../httpWire/messages.js";
import { metricsPath } from "./options.js";

/** The methods /metrics answers. */
const allowedMethods = ["GET", "HEAD"];

export interface MetricsServerDeps {
  /** The text to answer with and its Content-Type (Prometheus text format 0.0.4). */
  readonly render: () => Promise<{ readonly contentType: string; readonly body: string }>;
  /** Told of a scrape that failed (the answer is a 500). */
  readonly onError?: (error: unknown) => void;
}

export class MetricsServer {
  private constructor(private readonly server: Server) {}

  static async start(
    listen: { readonly host: string; readonly port: number },
    deps: MetricsServerDeps,
  ): Promise<MetricsServer> {
    const server = createServer((request, response) => void answer(request, response, deps));
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(listen.port, listen.host, () => {
        server.off("error", reject);
        resolve();
      });
    });
    return new MetricsServer(server);
  }

  get address(): { readonly host: string; readonly port: number } {
    const bound = this.server.address() as AddressInfo;
    return { host: bound.address, port: bound.port };
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }
}

async function answer(
  request: IncomingMessage,
  response: ServerResponse,
  deps: MetricsServerDeps,
): Promise<void> {
  const path = (request.url ?? "").split("?")[0];
  if (path !== metricsPath) return answerWithError(response, new LedgerError("NotFound", unknownPathMessage));
  if (!allowedMethods.includes(request.method ?? "")) {
    response.setHeader("allow", allowedMethods.join(", "));
    return answerWithError(response, new LedgerError("MethodNotAllowed", methodNotAllowedMessage));
  }
  try {
    const { contentType, body } = await deps.render();
    response.writeHead(200, { "content-type": contentType });
    response.end(request.method === "HEAD" ? undefined : body);
  } catch (error) {
    deps.onError?.(error);
    answerWithError(response, new LedgerError("Internal", "Gathering the metrics failed", { cause: error }));
  }
}

