// The API reference page (/api/v1/docs/) in a real browser, under the Content-Security-Policy the
// node sends with it (issue 36 #12): Swagger UI draws every operation of the document and can try
// one out, and the browser reports no violation of the policy. Headless Chromium through
// playwright-core, against a started node.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { chromium, type Browser } from "playwright-core";
import { useStartedNode } from "../helpers/startedNode.js";

const chromiumPath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
/** How long a locator waits for what the page should show. */
const waitMs = 15_000;

describe("the API reference page under its Content-Security-Policy", () => {
  const node = useStartedNode("api-docs");
  let browser: Browser;
  before(async () => {
    browser = await chromium.launch({ executablePath: chromiumPath });
  });
  after(() => browser.close());

  it("draws the document, tries an operation out, and breaks no rule of the policy", async () => {
    const page = await browser.newPage();
    const violations: string[] = [];
    page.on("console", (message) => {
      if (/Content.Security.Policy|Refused to/i.test(message.text())) violations.push(message.text());
    });
    await page.exposeFunction("reportViolation", (text: string) => violations.push(text));
    // Every violation the page meets, as the browser reports it to the page.
    await page.addInitScript(
      "document.addEventListener('securitypolicyviolation', (event) => reportViolation(`${event.violatedDirective} ${event.blockedURI}`))",
    );
    const response = await page.goto(`${node().baseUrl}/api/v1/docs/`);
    assert.match(response?.headers()["content-security-policy"] ?? "", /frame-ancestors 'none'/);
    const operation = page.locator(".opblock-summary-path", { hasText: "/api/v1/blocks/latest" }).first();
    await operation.waitFor({ timeout: waitMs });
    // Swagger UI's own look came through: its stylesheet and the styles it sets inline.
    const color = await page.locator(".opblock-get").first().evaluate((element) => {
      const view = element.ownerDocument.defaultView as unknown as { getComputedStyle(e: unknown): { borderColor: string } };
      return view.getComputedStyle(element).borderColor;
    });
    assert.notEqual(color, "rgb(0, 0, 0)");
    await operation.click();
    await page.locator("button.try-out__btn").first().click();
    await page.locator("button.execute").first().click();
    await page.locator(".live-responses-table .response-col_status").first().waitFor({ timeout: waitMs });
    assert.deepEqual(violations, []);
    await page.close();
  });
});
