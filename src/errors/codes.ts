// The one catalog of error codes (STYLE rule 4). Every error the node reports has a code here,
// with its HTTP status and how its message is framed. Codes are never reused or renumbered.
// `docs/errors.md` lists the same codes; a test keeps the two in sync.

/** How the HTTP message of an error is framed (BigchainDB `web/views/transactions.py`). */
export type MessageFrame =
  /** `Invalid transaction (<Code>): <message>` — every ValidationError subclass. */
  | "validation"
  /** `Invalid transaction schema: <message>` — SchemaValidationError. */
  | "schema"
  /** The message as it is. */
  | "plain";

export interface CodeSpec {
  readonly status: number;
  readonly frame: MessageFrame;
  readonly summary: string;
}

export const codes = {
  // Transaction rejections (BigchainDB `common/exceptions.py` class names, kept as the codes).
  InvalidHash: { status: 400, frame: "validation", summary: "The id is missing or is not the hash of the body." },
  SchemaValidationError: { status: 400, frame: "schema", summary: "The transaction does not match the v2.0 schema." },
  ValidationError: { status: 400, frame: "validation", summary: "A key rule, language rule or other structural rule failed." },
  InvalidSignature: { status: 400, frame: "validation", summary: "A fulfillment does not parse, verify, or match its condition." },
  AmountError: { status: 400, frame: "validation", summary: "An amount is out of range or inputs and outputs do not balance." },
  DuplicateTransaction: { status: 400, frame: "validation", summary: "A CREATE with this id is already committed or pending." },
  InputDoesNotExist: { status: 400, frame: "validation", summary: "A TRANSFER spends an output that does not exist." },
  DoubleSpend: { status: 400, frame: "validation", summary: "An output is already spent, or spent twice in one transaction." },
  AssetIdMismatch: { status: 400, frame: "validation", summary: "The inputs and the transaction name different assets." },
  ThresholdTooDeep: { status: 400, frame: "validation", summary: "Threshold conditions are nested too deep." },
  // Validator elections and votes (docs/compatibility.md #11).
  MultipleInputsError: { status: 400, frame: "validation", summary: "An election has more than one input or signer." },
  InvalidProposer: { status: 400, frame: "validation", summary: "An election's signer is not a current validator." },
  UnequalValidatorSet: { status: 400, frame: "validation", summary: "An election's outputs are not the validator set and its powers." },
  InvalidPowerChange: { status: 400, frame: "validation", summary: "An election proposes a power of 1/3 of the total or more, or an update CometBFT cannot apply." },
  InvalidPublicKey: { status: 400, frame: "validation", summary: "An election's validator key does not decode to 32 bytes." },
  ElectionConcluded: { status: 400, frame: "validation", summary: "A vote for an election that has already concluded." },
  // Legacy (interface variants A and B) rejections; the rest reuse the codes above.
  LegacyInvalid: { status: 400, frame: "validation", summary: "A legacy transaction has a mixed, unknown or malformed shape." },
  LegacyOperationError: { status: 400, frame: "validation", summary: "A legacy CREATE is not signed by a federation node." },
  // Request errors.
  BadJson: { status: 400, frame: "plain", summary: "The body is not valid JSON, or is not an object." },
  JsonTooDeep: { status: 400, frame: "plain", summary: "The body nests deeper than the limit." },
  LoneSurrogate: { status: 400, frame: "plain", summary: "A string in the body holds a lone surrogate, which is not Unicode." },
  BodyTooLarge: { status: 413, frame: "plain", summary: "The body is larger than the limit." },
  BadParameter: { status: 400, frame: "plain", summary: "A query parameter is missing, unknown or malformed." },
  SearchTooBroad: { status: 400, frame: "plain", summary: "A search without a limit matches more than can be ranked; give a limit." },
  ListTooLong: { status: 400, frame: "plain", summary: "An answer without paging would pass server.list_max items; page it with limit and cursor." },
  NotFound: { status: 404, frame: "plain", summary: "No such resource." },
  MethodNotAllowed: { status: 405, frame: "plain", summary: "The path exists but not with this method." },
  UnsupportedMediaType: { status: 415, frame: "plain", summary: "The body's content type cannot be read." },
  BadRequest: { status: 400, frame: "plain", summary: "The request itself cannot be read: its URL, headers or framing." },
  RequestTimeout: { status: 408, frame: "plain", summary: "The request was not received in full in the time allowed." },
  HeadersTooLarge: { status: 431, frame: "plain", summary: "The request line and headers are larger than the limit." },
  ExpectationFailed: { status: 417, frame: "plain", summary: "The request's Expect header asks for what the node does not do." },
  // Engine and node state.
  PendingTransaction: { status: 400, frame: "plain", summary: "The same transaction is already pending." },
  MempoolFull: { status: 503, frame: "plain", summary: "The pending pool is full; try again later." },
  EngineUnavailable: { status: 503, frame: "plain", summary: "The consensus engine cannot be reached." },
  CommitTimeout: { status: 504, frame: "plain", summary: "Not committed within the configured time; it may still commit." },
  ReadOnlyNode: { status: 405, frame: "plain", summary: "This process serves reads only (ledgerd serve-reads); send transactions to the node that writes." },
  StoreUnavailable: { status: 503, frame: "plain", summary: "The database cannot be reached; the node resumes by itself when it returns." },
  StoreDamaged: { status: 503, frame: "plain", summary: "The database's file is damaged; the node serves and signs nothing from it." },
  StoreTimeout: { status: 503, frame: "plain", summary: "The database cancelled a read that ran past the node's statement time limit; try again." },
  ShuttingDown: { status: 503, frame: "plain", summary: "The node is shutting down." },
  TooManySubscribers: { status: 503, frame: "plain", summary: "The event stream has as many subscribers as it allows." },
  TooManyReads: { status: 503, frame: "plain", summary: "As many long reads run as allowed; try again later." },
  ProofsUnavailable: { status: 409, frame: "plain", summary: "The chain keeps BigchainDB's app hash, which proves nothing (docs/proofs.md)." },
  ProofNotYetSigned: { status: 503, frame: "plain", summary: "Committed, but no signed header carries the app hash yet; retry after the next block." },
  ProofHeightBeforeTransaction: { status: 400, frame: "plain", summary: "The height asked for a proof is before the transaction's block; no proof to it can exist." },
  ReadIndexesOff: { status: 409, frame: "plain", summary: "This node writes no text-search or field index (database.read_indexes false); ask a node that serves reads." },
  NoSignedHeaders: { status: 409, frame: "plain", summary: "The solo engine signs no headers; there is no validator set to follow (docs/proofs.md)." },
  // The witness (docs/transparency.md "Witness"), with the statuses C2SP tlog-witness names.
  WitnessMalformed: { status: 400, frame: "plain", summary: "An add-checkpoint body that is not an old size, a proof and a checkpoint, or an old size past the checkpoint's." },
  WitnessUnknownLog: { status: 404, frame: "plain", summary: "The checkpoint's origin is not a log this witness follows." },
  WitnessBadSignature: { status: 403, frame: "plain", summary: "The checkpoint carries no valid signature by the log's key." },
  WitnessInconsistent: { status: 422, frame: "plain", summary: "The checkpoint is not consistent with the one this witness cosigned last." },
  Internal: { status: 500, frame: "plain", summary: "A bug in ledgerd." },
} as const satisfies Record<string, CodeSpec>;

export type ErrorCode = keyof typeof codes;

/** Codes a transaction can be rejected with (validation), as opposed to request errors. */
export const rejectionCodes = [
  "InvalidHash",
  "SchemaValidationError",
  "ValidationError",
  "InvalidSignature",
  "AmountError",
  "DuplicateTransaction",
  "InputDoesNotExist",
  "DoubleSpend",
  "AssetIdMismatch",
  "ThresholdTooDeep",
  "MultipleInputsError",
  "InvalidProposer",
  "UnequalValidatorSet",
  "InvalidPowerChange",
  "InvalidPublicKey",
  "ElectionConcluded",
] as const satisfies readonly ErrorCode[];

export type RejectionCode = (typeof rejectionCodes)[number];
