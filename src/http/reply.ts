import { Buffer } from "node:buffer";
import type { FastifyReply } from "fastify";

/**
 * Every JSON answer goes out through here: the body is already JSON text (built from stored
 * text without a parse and stringify round trip), and the type is exactly `application/json`,
 * as BigchainDB sent it (docs/http-api.md: every JSON response carries it). Sent as
 * bytes because Fastify appends `; charset=utf-8` to a JSON type given with a string body.
 */
export function sendJson(reply: FastifyReply, status: number, json: string): FastifyReply {
  return reply.code(status).header("content-type", "application/json").send(Buffer.from(json, "utf8"));
}

/** A JSON string literal. Ids and keys are checked ASCII, but stored text may hold anything. */
export function quote(text: string): string {
  return JSON.stringify(text);
}
