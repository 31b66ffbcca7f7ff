// The string formats the settings' schema names (schema.ts), as ajv takes them: the validator
// generated from the schema (configValidator.generated.ts) imports them from here.
import { parseHostPort } from "./parseHostPort.js";

/** An `http://host[:port][/path]` URL (CometBFT's RPC speaks plain HTTP). */
function isHttpUrl(text: string): boolean {
  if (!/^http:\/\/[^\s/]+(?:\/\S*)?$/.test(text)) return false;
  try {
    return new URL(text).protocol === "http:";
  } catch {
    return false;
  }
}

export const configFormats = {
  "host-port": { type: "string", validate: (text: string) => parseHostPort(text) !== null },
  "optional-host-port": { type: "string", validate: (text: string) => text === "" || parseHostPort(text) !== null },
  "http-url": { type: "string", validate: (text: string) => isHttpUrl(text) },
} as const;
