/**
 * Why a JSON text could not be read or a value could not be written. The json folder imports
 * nothing of the project's, so it has its own error; `asRejection` (src/errors/ledgerError.ts)
 * and the HTTP error handler read it as the catalog's code of the same name.
 */
export class JsonError extends Error {
  override readonly name = "JsonError";

  constructor(
    /**
     * `BadJson`: not valid JSON (or not writable); `JsonTooDeep`: nested past `depthMax`;
     * `LoneSurrogate`: a string is not Unicode (I-JSON, RFC 7493 §2.1).
     */
    readonly code: "BadJson" | "JsonTooDeep" | "LoneSurrogate",
    message: string,
  ) {
    super(message);
  }
}
