// deploy/grafana/ledgerd.json and deploy/prometheus/ledgerd-alerts.yml name only metrics that
// exist: ledgerd's and its process's as a real node's /metrics serves them (a solo node that
// committed and refused a transaction), CometBFT's as deploy/cometbft-metrics.txt lists them
// (made from the pinned CometBFT's sources by scripts/cometbft-metric-names.sh), which a real
// CometBFT's /metrics is held to; node_exporter's filesystem metrics and Prometheus' `up` by
// name. Recorded series are those the rules record. And the labels the dashboard groups
// ledgerd's metrics by are labels those metrics carry.
import assert from "node:assert/strict";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { loadConfig } from "../../src/config/loadConfig.js";
import { writeJson } from "../../src/json/writeJson.js";
import { startNode, type NodeHandle } from "../../src/node/startNode.js";
import { create, keypairOf } from "../helpers/txFactory.js";
import { waitFor } from "../helpers/waitFor.js";
import { repoRoot } from "../unit/cli/ledgerdProcess.js";
import { freeBasePort, requireCometBft } from "./cometbft/network.js";

const dashboard = JSON.parse(readFileSync(join(repoRoot, "deploy/grafana/ledgerd.json"), "utf8")) as Dashboard;
const rules = readFileSync(join(repoRoot, "deploy/prometheus/ledgerd-alerts.yml"), "utf8");
/** node_exporter's filesystem collector's gauges (its documented names since 0.16). */
const nodeExporterMetrics = ["node_filesystem_avail_bytes", "node_filesystem_size_bytes"];
/** Prometheus' own series of each target. */
const prometheusMetrics = ["up"];
/** PromQL's words that are not metric names. */
const promqlWords = new Set(["by", "without", "on", "ignoring", "group_left", "group_right", "and", "or", "unless", "bool", "offset", "inf", "nan"]);

interface Panel {
  readonly targets?: readonly { readonly expr: string }[];
  readonly panels?: readonly Panel[];
}
interface Dashboard {
  readonly panels: readonly Panel[];
  readonly templating: { readonly list: readonly { readonly definition?: string }[] };
}

/** The metric names of a PromQL expression: identifiers that are not functions, words or labels. */
function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, " ")
    .replace(/\[[^\]]*\]/g, " ")
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, " ");
  // Not within a number or a duration (`1e9`, `5m`).
  return [...bare.matchAll(/(?<![\w.])([a-zA-Z_:][a-zA-Z0-9_:]*)\s*(\()?/g)]
    .filter((m) => m[2] === undefined && !promqlWords.has(m[1]!.toLowerCase()))
    .map((m) => m[1]!);
}

/** The labels an expression groups ledgerd's series by: `by (…)` and `sum by (…)`. */
function groupingLabels(expr: string): string[] {
  return [...expr.matchAll(/\bby\s*\(([^)]*)\)/g)].flatMap((m) => m[1]!.split(",").map((l) => l.trim()));
}

function panelExprs(panels: readonly Panel[]): string[] {
  return panels.flatMap((p) => [...(p.targets ?? []).map((t) => t.expr), ...panelExprs(p.panels ?? [])]);
}

const dashboardExprs = [
  ...panelExprs(dashboard.panels),
  ...dashboard.templating.list.flatMap((v) => (v.definition === undefined ? [] : [v.definition.replace(/^label_values\((.*), \w+\)$/, "$1")])),
];
const ruleExprs = [...rules.matchAll(/^\s*expr: (.+)$/gm)].map((m) => m[1]!);
const recorded = new Set([...rules.matchAll(/^\s*- record: (\S+)$/gm)].map((m) => m[1]!));

/** Sample names and their label names, from Prometheus text. */
function scrapedNames(text: string): Map<string, Set<string>> {
  const names = new Map<string, Set<string>>();
  for (const line of text.split("\n")) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? /.exec(line);
    if (match === null) continue;
    const labels = names.get(match[1]!) ?? new Set<string>();
    for (const pair of (match[2] ?? "").matchAll(/([a-zA-Z_]\w*)="/g)) labels.add(pair[1]!);
    names.set(match[1]!, labels);
  }
  return names;
}

/** A histogram's or summary's series name's family: without _bucket, _sum, _count. */
const family = (name: string) => name.replace(/_(bucket|sum|count)$/, "");
/** Listed as it is (a counter named `…_count`), or as the histogram it is a series of. */
const listedByCometBft = (name: string) => cometBftListed.has(name) || cometBftListed.has(family(name));

const cometBftListed = new Set(
  readFileSync(join(repoRoot, "deploy/cometbft-metrics.txt"), "utf8").split("\n").filter((l) => l !== "" && !l.startsWith("#")).map((l) => l.split(" ")[1]!),
);

describe("the operator pack's metric names are real", () => {
  const dir = mkdtempSync(join(tmpdir(), "ledgerd-e2e-pack-"));
  let handle: NodeHandle;
  let ledgerd: Map<string, Set<string>>;

  before(async () => {
    const config = loadConfig({
      flags: { data_dir: dir, "server.bind": "127.0.0.1:0", "wsserver.bind": "127.0.0.1:0", "metrics.bind": "127.0.0.1:0", "log.level": "warn", "engine.block_interval_ms": "5" },
      env: {},
    });
    handle = await startNode(config);
    const api = `http://127.0.0.1:${handle.http.port}/api/v1/transactions?mode=commit`;
    const tx = writeJson(create(keypairOf("pack"), 1n, { pack: true }));
    assert.equal((await fetch(api, { method: "POST", body: tx, headers: { "content-type": "application/json" } })).status, 202);
    // Refused as a duplicate: the refusals' counter has its first series.
    assert.equal((await fetch(api, { method: "POST", body: tx, headers: { "content-type": "application/json" } })).status, 400);
    ledgerd = scrapedNames(await (await fetch(`http://127.0.0.1:${handle.metrics!.port}/metrics`)).text());
  });

  after(async () => {
    await handle?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("the dashboard and the rules are not empty of ledgerd's and CometBFT's metrics", () => {
    const used = new Set([...dashboardExprs, ...ruleExprs].flatMap(metricNames));
    assert.ok([...used].filter((n) => n.startsWith("ledgerd_")).length >= 12, [...used].join(" "));
    assert.ok([...used].filter((n) => n.startsWith("cometbft_")).length >= 8, [...used].join(" "));
    assert.ok(used.has("ledgerd_ready") && used.has("node_filesystem_avail_bytes"));
  });

  it("every metric they name exists", () => {
    const unknown = [...new Set([...dashboardExprs, ...ruleExprs].flatMap(metricNames))].filter((name) => {
      if (name.startsWith("cometbft_")) return !listedByCometBft(name);
      if (name.includes(":")) return !recorded.has(name);
      return !ledgerd.has(name) && !nodeExporterMetrics.includes(name) && !prometheusMetrics.includes(name);
    });
    assert.deepEqual(unknown, []);
  });

  it("every label the dashboard groups ledgerd's series by is one they carry", () => {
    for (const expr of dashboardExprs.filter((e) => /\bledgerd_/.test(e))) {
      const carried = new Set(metricNames(expr).flatMap((name) => [...(ledgerd.get(name) ?? [])]));
      for (const label of groupingLabels(expr)) {
        assert.ok(label === "instance" || carried.has(label), `${label} in ${expr}`);
      }
    }
  });

  it("the extraction finds names and skips functions, labels, strings and ranges", () => {
    const expr = 'histogram_quantile(0.99, sum by (route, le) (rate(a_bucket{job="x", le="+Inf"}[$__rate_interval]))) > 1e9 and on (instance) b_total offset 5m';
    assert.deepEqual(metricNames(expr), ["a_bucket", "b_total"]);
  });
});

describe("deploy/cometbft-metrics.txt is true to a real CometBFT", () => {
  let cometbft: ChildProcess | null = null;
  const home = mkdtempSync(join(tmpdir(), "ledgerd-e2e-cometbft-metrics-"));
  after(async () => {
    if (cometbft !== null && cometbft.exitCode === null) {
      const exited = new Promise((resolve) => cometbft!.once("exit", resolve));
      cometbft.kill("SIGTERM");
      await exited;
    }
    rmSync(home, { recursive: true, force: true });
  });

  it("each metric a running CometBFT serves is listed (its built-in kvstore app, one validator)", async () => {
    const binary = requireCometBft();
    assert.equal(spawnSync(binary, ["init", "--home", home], { encoding: "utf8" }).status, 0);
    const base = await freeBasePort(1);
    const configPath = join(home, "config/config.toml");
    const config = readFileSync(configPath, "utf8")
      .replace(/^prometheus = false$/m, "prometheus = true")
      .replace(/^prometheus_listen_addr = .*$/m, `prometheus_listen_addr = "127.0.0.1:${base}"`)
      .replace(/^laddr = "tcp:\/\/127\.0\.0\.1:26657"$/m, `laddr = "tcp://127.0.0.1:${base + 1}"`)
      .replace(/^laddr = "tcp:\/\/0\.0\.0\.0:26656"$/m, `laddr = "tcp://127.0.0.1:${base + 2}"`)
      .replace(/^timeout_commit = .*$/m, 'timeout_commit = "100ms"');
    writeFileSync(configPath, config);
    cometbft = spawn(binary, ["start", "--home", home, "--proxy_app", "kvstore"], { stdio: "ignore" });
    const url = `http://127.0.0.1:${base}/metrics`;
    const text = await waitFor("CometBFT's metrics past height 2", async () => {
      const body = await fetch(url).then((r) => r.text(), () => "");
      return /^cometbft_consensus_height\{[^}]*\} ([3-9]|\d\d+)$/m.test(body) ? body : undefined;
    }, { timeoutMs: 60_000 });
    const served = [...scrapedNames(text).keys()].filter((n) => n.startsWith("cometbft_"));
    assert.ok(served.length >= 20, served.join(" "));
    assert.deepEqual(served.filter((name) => !listedByCometBft(name)), []);
  });
});
