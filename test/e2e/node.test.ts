// The whole node, started as a user starts it (config → startNode), driven over real sockets by
// the official JavaScript driver (issue #4, "Done when").
import { describe } from "node:test";
import { useStartedNode } from "../helpers/startedNode.js";
import { driverScenarios } from "./driverScenarios.js";

describe("a started node, driven by bigchaindb-driver", () => {
  const node = useStartedNode("e2e");
  driverScenarios(() => {
    const { baseUrl, streamsUrl } = node();
    return { baseUrl, streamsUrl };
  });
});
