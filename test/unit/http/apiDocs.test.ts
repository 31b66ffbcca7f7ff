// The API reference page's headers (issue 36 #12): like the explorer's, a policy that allows only
// the node's own scripts and no framing, and no content sniffing of the page or its files. That
// Swagger UI works under the policy is shown in a browser (test/e2e/apiDocs.test.ts).
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { get, startHttpStack, type HttpStack } from "./helpers.js";

describe("GET /api/v1/docs", () => {
  let http: HttpStack;
  before(async () => {
    http = await startHttpStack();
  });
  after(() => http.close());

  test("the page: a Content-Security-Policy of its own files, no framing, nosniff", async () => {
    for (const url of ["/api/v1/docs", "/api/v1/docs/"]) {
      const response = await get(http.app, url);
      assert.equal(response.statusCode, 200);
      const policy = String(response.headers["content-security-policy"]);
      const directives = new Map(policy.split(";").map((part) => {
        const [name = "", ...values] = part.trim().split(/\s+/);
        return [name, values.join(" ")];
      }));
      assert.equal(directives.get("default-src"), "'self'");
      assert.equal(directives.get("frame-ancestors"), "'none'");
      assert.equal(directives.has("script-src"), false, "scripts fall back to default-src 'self'");
      assert.ok(!policy.includes("unsafe-"), policy);
      assert.equal(response.headers["x-content-type-options"], "nosniff");
      // Nothing inline for the policy to refuse.
      assert.doesNotMatch(response.body, /<script>|<style|\sstyle=|\son\w+=/);
    }
  });

  test("its files: nosniff, each with its type", async () => {
    for (const name of ["swagger-ui.css", "swagger-ui-bundle.js", "favicon-32x32.png", "ledgerd-docs.js"]) {
      const response = await get(http.app, `/api/v1/docs/${name}`);
      assert.equal(response.statusCode, 200, name);
      assert.equal(response.headers["x-content-type-options"], "nosniff", name);
    }
  });
});
