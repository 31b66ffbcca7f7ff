// `npm run generate:validators`: writes the schemas' validators (validatorCode.ts).
import { writeFileSync } from "node:fs";
import { generatedValidators } from "./validatorCode.js";

for (const { path, text } of generatedValidators) {
  writeFileSync(path, text());
  console.log(`wrote ${path}`);
}
