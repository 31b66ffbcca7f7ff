// The API's description: the OpenAPI document at /api/v1/openapi.json, and a reference page
// that draws it at /api/v1/docs/, made of Swagger UI's own packaged files (the swagger-ui-dist
// package), served by the node: nothing is fetched from another site, so the page works on a
// network without the internet and leaks nothing about who reads it.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { FastifyInstance } from "fastify";
import { LedgerError } from "../../errors/ledgerError.js";
import { openapiDocument, type OpenapiOptions } from "../openapi/openapiDocument.js";
import { sendJson } from "../reply.js";
import { addResource } from "../resource.js";

const docsPath = "/api/v1/docs";

/** The files the page loads: Swagger UI's, and the few lines that point it at the document. */
const pageFiles: Readonly<Record<string, string>> = {
  "swagger-ui.css": "text/css; charset=utf-8",
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
  "favicon-32x32.png": "image/png",
  "ledgerd-docs.js": "text/javascript; charset=utf-8",
};

// The page's scripts and styles are files of this node (Swagger UI sets styles through the DOM,
// which the policy allows), its icons data: URLs; it fetches only the document (and, to "try it
// out", the API) from here. No page may frame it (clickjacking), as the explorer's (explorer.ts).
const contentSecurityPolicy =
  "default-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

// No inline script: the page works under a Content-Security-Policy of `script-src 'self'`.
const starter = `window.addEventListener("load", () => {
  window.ui = SwaggerUIBundle({ url: "/api/v1/openapi.json", dom_id: "#swagger-ui", deepLinking: true });
});
`;

const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>ledgerd HTTP API</title>
<link rel="stylesheet" href="${docsPath}/swagger-ui.css">
<link rel="icon" type="image/png" href="${docsPath}/favicon-32x32.png">
</head>
<body>
<main id="swagger-ui"></main>
<script src="${docsPath}/swagger-ui-bundle.js"></script>
<script src="${docsPath}/ledgerd-docs.js"></script>
</body>
</html>
`;

function swaggerUiDir(): string {
  return dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));
}

/** The document describes the node as configured: its largest `limit`, whether the explorer is on. */
export function registerApiDocsRoutes(app: FastifyInstance, options: OpenapiOptions): void {
  const document = JSON.stringify(openapiDocument(options));
  const files = new Map<string, Buffer>(); // read once, on first ask
  const fileOf = (name: string): Buffer => {
    let bytes = files.get(name);
    if (bytes === undefined) {
      bytes = name === "ledgerd-docs.js" ? Buffer.from(starter) : readFileSync(join(swaggerUiDir(), name));
      files.set(name, bytes);
    }
    return bytes;
  };
  addResource(app, "/api/v1/openapi.json", { GET: async (_request, reply) => sendJson(reply, 200, document) });
  addResource(app, docsPath, {
    GET: async (_request, reply) =>
      reply
        .code(200)
        .header("content-type", "text/html; charset=utf-8")
        .header("content-security-policy", contentSecurityPolicy)
        .header("x-content-type-options", "nosniff")
        .send(page),
  });
  addResource(app, `${docsPath}/:asset`, {
    GET: async (request, reply) => {
      const name = (request.params as { asset: string }).asset;
      const type = Object.hasOwn(pageFiles, name) ? pageFiles[name] : undefined;
      if (type === undefined) throw new LedgerError("NotFound", "Not found");
      reply.header("content-type", type).header("x-content-type-options", "nosniff");
      return reply.code(200).header("cache-control", "public, max-age=3600").send(fileOf(name));
    },
  });
}
