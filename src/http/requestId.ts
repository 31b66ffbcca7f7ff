// Each request gets an id: the client's (or a proxy's) `X-Request-Id` when it is sane, else a new
// random UUID. It is the `reqId` of every log line the request writes (Fastify's request
// logger) and is echoed in the answer's `X-Request-Id`, so a client's report names the lines.
// A header that is not sane (too long, or characters a log line or a header should not carry)
// is not refused, nor trusted: the request gets a made id, as without one.
import { randomUUID } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { IncomingMessage } from "node:http";

export const requestIdHeader = "x-request-id";

/**
 * Longest request id taken from a client, in characters: a UUID is 36, and common tracing ids
 * (W3C trace ids 32 hex, AWS `Root=1-...` 40) fit with room; more would only bloat every line.
 */
export const requestIdCharsMax = 128;

/** Letters, digits and the punctuation ids are made of; no spaces, quotes or control characters. */
const saneRequestId = new RegExp(`^[A-Za-z0-9._:+=/@-]{1,${requestIdCharsMax}}$`);

/** Fastify's `genReqId`: the header's value when sane, else a new one. */
export function requestIdOf(request: IncomingMessage): string {
  const given = request.headers[requestIdHeader];
  return typeof given === "string" && saneRequestId.test(given) ? given : randomUUID();
}

/**
 * Set on every request by the app's checks (httpApp.ts), so every answer carries it, and by the
 * error handler for errors Fastify raises before any hook runs.
 */
export function echoRequestId(request: FastifyRequest, reply: FastifyReply): void {
  reply.header(requestIdHeader, request.id);
}
