// deploy/grafana/ledgerd.json is a dashboard Grafana lays out as meant: panel ids unique, every
// panel titled, described and on the 24-column grid without overlapping another, each query on
// the dashboard's Prometheus data source variable, and every variable a query uses defined.
// (That its metric names exist is test/e2e/operatorPack.test.ts's.)
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { repoRoot } from "../cli/ledgerdProcess.js";

interface GridPos { readonly x: number; readonly y: number; readonly w: number; readonly h: number }
interface Panel {
  readonly id: number;
  readonly type: string;
  readonly title: string;
  readonly description?: string;
  readonly gridPos: GridPos;
  readonly datasource?: { readonly uid: string };
  readonly targets?: readonly { readonly expr: string; readonly refId: string }[];
}
const dashboard = JSON.parse(readFileSync(join(repoRoot, "deploy/grafana/ledgerd.json"), "utf8")) as {
  readonly panels: readonly Panel[];
  readonly templating: { readonly list: readonly { readonly name: string; readonly type: string }[] };
};
const gridColumns = 24;

const overlap = (a: GridPos, b: GridPos) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

describe("the Grafana dashboard", () => {
  it("has unique panel ids, and every panel a title and, but rows, a description and queries", () => {
    const ids = dashboard.panels.map((p) => p.id);
    assert.equal(new Set(ids).size, ids.length);
    for (const panel of dashboard.panels) {
      assert.ok(panel.title !== "", JSON.stringify(panel.gridPos));
      if (panel.type === "row") continue;
      assert.ok((panel.description ?? "") !== "", panel.title);
      assert.ok((panel.targets ?? []).length > 0, panel.title);
      assert.equal(new Set(panel.targets!.map((t) => t.refId)).size, panel.targets!.length, panel.title);
    }
  });

  it("lays the panels on the grid without overlaps", () => {
    for (const [i, a] of dashboard.panels.entries()) {
      assert.ok(a.gridPos.x >= 0 && a.gridPos.x + a.gridPos.w <= gridColumns, a.title);
      for (const b of dashboard.panels.slice(i + 1)) assert.ok(!overlap(a.gridPos, b.gridPos), `${a.title} / ${b.title}`);
    }
  });

  it("queries the data source variable, with only variables it defines", () => {
    const variables = new Set(dashboard.templating.list.map((v) => v.name));
    assert.equal(dashboard.templating.list.find((v) => v.name === "datasource")?.type, "datasource");
    for (const panel of dashboard.panels.filter((p) => p.type !== "row")) {
      assert.equal(panel.datasource?.uid, "${datasource}", panel.title);
      for (const { expr } of panel.targets!) {
        for (const [, name] of expr.matchAll(/\$(\w+)/g)) {
          assert.ok(name!.startsWith("__") || variables.has(name!), `$${name} in ${panel.title}`);
        }
      }
    }
  });
});
