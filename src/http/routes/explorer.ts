// The explorer page (docs/explorer.md) at /explorer/: the files `npm run build` bundles into
// dist/explorer/, served by the node on the API's port, so the page needs nothing from another
// site. The page reads only the public API and stream, like any client.
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, extname, join } from "node:path";
import { gzipSync } from "node:zlib";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { LedgerError } from "../../errors/ledgerError.js";
import { addResource } from "../resource.js";

export const explorerPath = "/explorer";

const contentTypes: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
};

// The page connects to the node it is pointed at (`?node=`), which may be another origin, and
// to its event stream; everything else it loads comes from here. Styles may be set inline
// (the chart sizes its canvas through `style`).
const contentSecurityPolicy =
  "default-src 'self'; connect-src 'self' http: https: ws: wss:; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'";

interface PageFile {
  readonly bytes: Buffer;
  /** The same, gzipped once when read: what almost every browser is sent. */
  readonly gzipped: Buffer;
  readonly type: string;
  /** A strong validator: a browser asks again each time and gets 304 while nothing changed. */
  readonly etag: string;
}

/** The built page's folder: dist/explorer/ beside ledgerd's package.json (src/ or dist/src/). */
export function explorerBundleDir(): string {
  return join(dirname(createRequire(import.meta.url).resolve("ledgerd/package.json")), "dist", "explorer");
}

/** The built files, read once on the first ask; none when the page was not built. */
function readBundle(dir: string): Map<string, PageFile> {
  const files = new Map<string, PageFile>();
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return files;
    throw error;
  }
  for (const name of names) {
    const type = contentTypes[extname(name)];
    if (type === undefined) continue;
    const bytes = readFileSync(join(dir, name));
    const etag = `"${createHash("sha256").update(bytes).digest("base64url").slice(0, 22)}"`;
    files.set(name, { bytes, gzipped: gzipSync(bytes, { level: 9 }), type, etag });
  }
  return files;
}

export function registerExplorerRoutes(app: FastifyInstance, dir: string): void {
  let bundle: Map<string, PageFile> | undefined;
  const fileOf = (name: string): PageFile => {
    bundle ??= readBundle(dir);
    const file = bundle.get(name);
    if (file !== undefined) return file;
    if (bundle.size === 0) throw new LedgerError("NotFound", "The explorer page is not built: run npm run build");
    throw new LedgerError("NotFound", "Not found");
  };
  addResource(app, explorerPath, {
    GET: async (request, reply) => {
      // The page names its files relative to itself: at /explorer they would resolve to /app.js.
      const { path, query } = splitTarget(request.url);
      if (!path.endsWith("/")) return reply.code(308).header("location", `${explorerPath}/${query}`).send();
      return sendFile(request, reply, fileOf("index.html"));
    },
  });
  addResource(app, `${explorerPath}/:asset`, {
    GET: async (request, reply) => sendFile(request, reply, fileOf((request.params as { asset: string }).asset)),
  });
}

/**
 * A request target's path and `?query`. A target with a `#` never reaches a route: every request
 * is refused one first (requestRules.ts), so the redirect passes on only the page and the query.
 */
function splitTarget(url: string): { path: string; query: string } {
  const at = url.indexOf("?");
  return at < 0 ? { path: url, query: "" } : { path: url.slice(0, at), query: url.slice(at) };
}

function sendFile(request: FastifyRequest, reply: FastifyReply, file: PageFile): FastifyReply {
  // Each encoding is its own representation, with its own validator (RFC 9110 §8.8.3).
  const gzip = acceptsGzip(request.headers["accept-encoding"]);
  const etag = gzip ? `${file.etag.slice(0, -1)}-gz"` : file.etag;
  reply.header("etag", etag).header("cache-control", "no-cache").header("vary", "accept-encoding").header("x-content-type-options", "nosniff");
  if (file.type.startsWith("text/html")) reply.header("content-security-policy", contentSecurityPolicy);
  if (noneMatchFails(request.headers["if-none-match"], etag)) return reply.code(304).send();
  reply.code(200).header("content-type", file.type);
  if (gzip) return reply.header("content-encoding", "gzip").send(file.gzipped);
  return reply.send(file.bytes);
}

/**
 * Whether `If-None-Match` names the representation whose (strong) validator is `etag`, so that a
 * GET is answered 304 (RFC 9110 §13.1.2): `*`, or a list of entity tags of which one matches by
 * the weak comparison, where `W/"x"` and `"x"` match.
 */
export function noneMatchFails(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === "*") return true;
  for (const [, opaque] of header.matchAll(entityTags)) {
    if (opaque === etag) return true;
  }
  return false;
}

// An entity tag in a list (RFC 9110 §8.8.3): an optional weakness mark, then the opaque tag.
const entityTags = /(?:W\/)?("[^"]*")/g;

/**
 * Whether `Accept-Encoding` takes gzip (RFC 9110 §12.5.3): named, or through `*`, with a
 * weight above 0 (`gzip;q=0` refuses it); a coding named outright counts before `*`.
 */
export function acceptsGzip(header: string | undefined): boolean {
  if (header === undefined) return false;
  const weights = new Map<string, number>();
  for (const part of header.split(",")) {
    const [coding = "", ...parameters] = part.trim().toLowerCase().split(";");
    const q = parameters.map((p) => p.trim()).find((p) => p.startsWith("q="));
    weights.set(coding.trim(), q === undefined ? 1 : Number(q.slice(2)));
  }
  const weight = weights.get("gzip") ?? weights.get("*") ?? 0;
  return weight > 0;
}
