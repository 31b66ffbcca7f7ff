// The whole node, started as a user starts it (config → startNode), driven over real sockets by
// the official JavaScript driver (issue #4, "Done when").
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe } from "node:test";
import { loadConfig } from "../../src/config/loadConfig.js";
import { startNode, type NodeHandle } from "../../src/node/startNode.js";
import { driverScenarios, type NodeUnderTest } from "./driverScenarios.js";

describe("a started node, driven by bigchaindb-driver", () => {
  const dir = mkdtempSync(join(tmpdir(), "ledgerd-e2e-"));
  let handle: NodeHandle;
  let node: NodeUnderTest;

  before(async () => {
    const config = loadConfig({
      flags: { data_dir: dir, "server.bind": "127.0.0.1:0", "wsserver.bind": "127.0.0.1:0", "log.level": "warn", "engine.block_interval_ms": "5" },
      env: {},
    });
    handle = await startNode(config);
    node = { baseUrl: `http://127.0.0.1:${handle.http.port}`, streamsUrl: handle.streamsUrl };
  });

  after(async () => {
    await handle?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  driverScenarios(() => node);
});
