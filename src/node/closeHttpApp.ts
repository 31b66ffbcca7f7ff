import type { AddressInfo } from "node:net";
import type { FastifyInstance } from "fastify";
import type { HostPort } from "../config/parseHostPort.js";

/** Starts an app listening on `at` (port 0: a free one) and gives the address it bound. */
export async function listenHttpApp(app: FastifyInstance, at: HostPort): Promise<HostPort> {
  await app.listen({ host: at.host, port: at.port });
  const bound = app.server.address() as AddressInfo;
  return { host: bound.address, port: bound.port };
}

/** How often a closing server drops the connections that went idle since it began closing. */
const idleSweepIntervalMs = 50;

/**
 * Closes a Fastify app: no new connections, the requests in progress finish. Fastify closes
 * the connections idle when closing begins, but a keep-alive connection whose answer is sent
 * after that stays open until its client or `keepAliveTimeout` (72 s) ends it, and the close
 * with it: after a disk failure, the node sat unreachable for that long before exiting. So the
 * connections that go idle meanwhile are dropped too.
 */
export async function closeHttpApp(app: FastifyInstance): Promise<void> {
  const sweep = setInterval(() => app.server.closeIdleConnections(), idleSweepIntervalMs);
  try {
    await app.close();
  } finally {
    clearInterval(sweep);
  }
}
