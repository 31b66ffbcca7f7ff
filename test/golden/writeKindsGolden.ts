// Writes test/golden/kinds.golden.json from the code as it is: run once, on the code whose
// behaviour is the reference, and commit the file. `node --import tsx test/golden/writeKindsGolden.ts`
import { writeFileSync } from "node:fs";
import { runGoldenScenario } from "./kindsScenario.js";

const record = await runGoldenScenario();
const file = new URL("./kinds.golden.json", import.meta.url);
writeFileSync(file, JSON.stringify(record, null, 2) + "\n");
process.stdout.write(`wrote ${file.pathname}: ${record.steps.length} steps, ${record.eventCount} events\n`);
