// `npm run generate:validators`: writes the transaction schemas' validators (validatorCode.ts).
import { writeFileSync } from "node:fs";
import { transactionValidatorsModule, transactionValidatorsPath } from "./validatorCode.js";

writeFileSync(transactionValidatorsPath, transactionValidatorsModule());
console.log(`wrote ${transactionValidatorsPath}`);
