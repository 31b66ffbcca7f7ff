// The shape of ledgerd's settings and the JSON Schema that checks them (STYLE rule 10, Fastify's
// "config validated against a schema that rejects unknown keys"). Keys are snake_case and grouped
// as BigchainDB groups its own (`server.bind`, `wsserver.advertised_*`): the dotted key is also
// the flag (`--server.bind`) and, upper-cased with `_` for `.`, the env variable
// (`LEDGERD_SERVER_BIND`). Each leaf's `description` is what `--help` prints.
import type { JSONSchemaType } from "ajv";
import { jsonLimitsDefault } from "../json/readJson.js";

export const logLevels = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
export type LogLevel = (typeof logLevels)[number];

export const engineKinds = ["solo", "cometbft"] as const;
export type EngineKind = (typeof engineKinds)[number];

export const databaseBackends = ["sqlite", "postgres"] as const;
export type DatabaseBackend = (typeof databaseBackends)[number];

export const sqliteSynchronousModes = ["full", "normal", "off"] as const;
export type SqliteSynchronousMode = (typeof sqliteSynchronousModes)[number];
/** Whether the node commits on a thread of its own: `auto` does with the solo engine only. */
export const writerThreadModes = ["auto", "on", "off"] as const;
export type WriterThreadMode = (typeof writerThreadModes)[number];

export interface Config {
  /** Where the node keeps its key, its `config.json` and (by default) its database. */
  readonly data_dir: string;
  readonly log: {
    readonly level: LogLevel;
  };
  readonly server: {
    readonly bind: string;
    readonly workers: number;
    readonly threads: number;
    readonly body_bytes_max: number;
    readonly search_limit_max: number;
    readonly list_max: number;
    readonly explorer: boolean;
    readonly request_timeout_ms: number;
    readonly expensive_reads_max: number;
    readonly pipelined_requests_max: number;
  };
  readonly wsserver: {
    readonly bind: string;
    readonly advertised_url: string;
    readonly subscribers_max: number;
    readonly send_queue_bytes_max: number;
    readonly ping_interval_ms: number;
    readonly client_message_bytes_max: number;
    readonly close_grace_ms: number;
  };
  readonly database: {
    readonly backend: DatabaseBackend;
    readonly path: string;
    readonly url: string;
    readonly pool_size: number;
    readonly statement_timeout_ms: number;
    readonly connect_timeout_ms: number;
    readonly synchronous: SqliteSynchronousMode;
    readonly synchronous_off_acknowledged: boolean;
    readonly cache_size_bytes: number;
    readonly mmap_size_bytes: number;
    readonly wal_autocheckpoint_pages: number;
    readonly checkpoint_interval_ms: number;
    readonly journal_size_limit_bytes: number;
    readonly search_words_max: number;
    readonly search_ranked_matches_max: number;
    readonly index_slices: number;
    readonly index_rows_waiting_max: number;
    readonly index_merge_rows_max: number;
    readonly writer_thread: WriterThreadMode;
    readonly read_indexes: boolean;
  };
  readonly engine: {
    readonly kind: EngineKind;
    readonly block_interval_ms: number;
    readonly txs_per_block_max: number;
    readonly commit_timeout_ms: number;
    readonly chain_id: string;
    readonly abci_bind: string;
    readonly rpc_url: string;
    readonly cometbft_home: string;
    readonly cometbft_binary: string;
    readonly retain_blocks: number;
    readonly snapshot_interval: number;
    readonly snapshot_keep: number;
  };
  readonly ledger: {
    readonly pending_txs_max: number;
    readonly prepared_cache_entries_max: number;
    readonly replay_batch_blocks_max: number;
    readonly prepare_batch_txs_max: number;
    readonly prepare_shared_txs_min: number;
  };
  readonly metrics: {
    readonly bind: string;
  };
  readonly checkpoint: {
    readonly origin: string;
    readonly witnesses: string;
    readonly witness_quorum: number;
  };
  readonly witness: {
    readonly logs: string;
    readonly name: string;
  };
}

/** More HTTP processes than this on one machine is a typo, not a deployment. */
export const serverWorkersMax = 256;
/** Likewise for signature-verification threads per process. */
export const serverThreadsMax = 256;
/** Node's timers hold at most a signed 32-bit count of milliseconds; longer ones fire at once. */
export const durationMsMax = 2_147_483_647;
/** Counts beyond this lose integer precision in a double. */
const countMax = Number.MAX_SAFE_INTEGER;
/** The store takes a power of two from 1 to 4096 (src/store/sqlite/options.ts). */
const indexSlicesAllowed = Array.from({ length: 13 }, (_, i) => 2 ** i);
/**
 * A body is read by readJson, which reads at most its `bytesMax`: a larger `body_bytes_max`
 * would let bodies through the HTTP layer only to refuse them as JSON.
 */
export const bodyBytesMaxMax = jsonLimitsDefault.bytesMax;
/** `witness.logs`: a few hundred verifier keys at most. */
export const witnessLogsCharsMax = 65_536;
/** A checkpoint's origin line: a name, not a document. */
export const checkpointOriginCharsMax = 256;
/** CometBFT's limit on a chain id (`MaxChainIDLen`). */
export const chainIdCharsMax = 50;

function count(minimum: number, description: string) {
  return { type: "integer", minimum, maximum: countMax, description } as const;
}

function durationMs(minimum: number, description: string) {
  return { type: "integer", minimum, maximum: durationMsMax, description } as const;
}

export const configSchema: JSONSchemaType<Config> = {
  type: "object",
  additionalProperties: false,
  required: ["data_dir", "log", "server", "wsserver", "database", "engine", "ledger", "metrics", "checkpoint", "witness"],
  properties: {
    data_dir: {
      type: "string",
      minLength: 1,
      description: "Folder for the node key, config.json and the database (relative: to the working directory)",
    },
    log: {
      type: "object",
      additionalProperties: false,
      required: ["level"],
      properties: {
        level: { type: "string", enum: [...logLevels], description: "Least severe log level written" },
      },
    },
    server: {
      type: "object",
      additionalProperties: false,
      required: [
        "bind",
        "workers",
        "threads",
        "body_bytes_max",
        "search_limit_max",
        "list_max",
        "request_timeout_ms",
        "expensive_reads_max",
        "pipelined_requests_max",
        "explorer",
      ],
      properties: {
        bind: {
          type: "string",
          format: "host-port",
          description: "HTTP API address, HOST:PORT (port 0: any free port)",
        },
        workers: {
          type: "integer",
          minimum: 1,
          maximum: serverWorkersMax,
          description: "HTTP processes sharing the port (1: HTTP runs in the node's own process)",
        },
        threads: {
          type: "integer",
          minimum: 0,
          maximum: serverThreadsMax,
          description: "Signature-verification threads per HTTP process (0: on the main thread)",
        },
        body_bytes_max: {
          type: "integer",
          minimum: 1,
          maximum: bodyBytesMaxMax,
          description: "Largest request body accepted, in bytes (then 413)",
        },
        search_limit_max: count(1, "Largest limit (page size) a client may ask for (then 400; limit 0 is all)"),
        list_max: count(0, "Most items of a list answered without paging (then 400 ListTooLong); 0: no cap"),
        request_timeout_ms: durationMs(1, "Time allowed to receive a whole request"),
        expensive_reads_max: count(1, "Lists, searches and blocks one HTTP process answers at once (then 503)"),
        pipelined_requests_max: count(1, "Requests of one connection handled at once; later pipelined ones wait unread"),
        explorer: { type: "boolean", description: "Serve the explorer page at /explorer/ (built by npm run build)" },
      },
    },
    wsserver: {
      type: "object",
      additionalProperties: false,
      required: [
        "bind",
        "advertised_url",
        "subscribers_max",
        "send_queue_bytes_max",
        "ping_interval_ms",
        "client_message_bytes_max",
        "close_grace_ms",
      ],
      properties: {
        bind: { type: "string", format: "host-port", description: "WebSocket event stream address, HOST:PORT" },
        advertised_url: {
          type: "string",
          pattern: "^(?:$|wss?://[^\\s/]+(?:/\\S*)?$)",
          description:
            "ws:// or wss:// URL the API advertises, before the stream's path (empty: ws://<bound address>)",
        },
        subscribers_max: count(1, "WebSocket subscribers at once (then 503)"),
        send_queue_bytes_max: count(1, "Bytes queued for one subscriber before it is dropped"),
        ping_interval_ms: durationMs(1, "How often subscribers are pinged; one that missed the last ping is cut"),
        client_message_bytes_max: count(1, "Largest frame a subscriber may send, in bytes"),
        close_grace_ms: durationMs(0, "On shutdown, how long subscribers get to close"),
      },
    },
    database: {
      type: "object",
      additionalProperties: false,
      required: [
        "backend",
        "path",
        "url",
        "pool_size",
        "statement_timeout_ms",
        "connect_timeout_ms",
        "synchronous",
        "synchronous_off_acknowledged",
        "cache_size_bytes",
        "mmap_size_bytes",
        "wal_autocheckpoint_pages",
        "checkpoint_interval_ms",
        "journal_size_limit_bytes",
        "search_words_max",
        "search_ranked_matches_max",
        "index_slices",
        "index_rows_waiting_max",
        "index_merge_rows_max",
        "writer_thread",
        "read_indexes",
      ],
      properties: {
        backend: { type: "string", enum: [...databaseBackends], description: "Storage backend" },
        path: { type: "string", minLength: 1, description: "sqlite: database file (relative: to data_dir)" },
        url: {
          type: "string",
          description: "postgres: connection URL, postgres://USER:PASSWORD@HOST:PORT/DATABASE (empty: the PG* environment variables)",
        },
        pool_size: count(1, "postgres: read connections of each process (the writer has one more)"),
        statement_timeout_ms: durationMs(0, "postgres: a statement running longer is cancelled (0: no limit)"),
        connect_timeout_ms: durationMs(1, "postgres: how long opening a connection may take"),
        synchronous: {
          type: "string",
          enum: [...sqliteSynchronousModes],
          description:
            "When a commit reaches the disk: full (survives power loss), normal (survives a crash of the process), off",
        },
        synchronous_off_acknowledged: {
          type: "boolean",
          description:
            "Required with synchronous off: committed blocks can be lost or the database damaged on power loss",
        },
        cache_size_bytes: count(0, "SQLite page cache of each connection, in bytes (the node's writer, its readers and each HTTP worker have their own; the writer keeps at most 16 MiB until the file passes 1 GiB)"),
        mmap_size_bytes: count(0, "SQLite memory-mapped reads, in bytes (0: off)"),
        // 0 would turn checkpoints off: the log would grow with every block until the disk is full.
        wal_autocheckpoint_pages: count(1, "Write-ahead log pages before a checkpoint inside a commit (with checkpoint_interval_ms: 4 times as many, a fallback)"),
        checkpoint_interval_ms: durationMs(0, "sqlite: a thread of its own checkpoints the write-ahead log this often, so that no commit pauses for it (0: inside the commit that crosses wal_autocheckpoint_pages)"),
        journal_size_limit_bytes: count(0, "Write-ahead log size kept after a checkpoint, in bytes"),
        search_words_max: count(1, "Words in one text search"),
        search_ranked_matches_max: count(1, "Matches one text search ranks (the newest)"),
        index_slices: {
          type: "integer",
          enum: indexSlicesAllowed,
          description: "Slices the hashed indexes are merged in (a power of two; read when the database is created)",
        },
        index_rows_waiting_max: count(1, "Index rows waiting in memory before a commit merges more (those waiting at a restart are merged at the open, before the first block)"),
        index_merge_rows_max: count(1, "Most index rows one commit merges; a slice holding more is merged over several commits"),
        writer_thread: {
          type: "string",
          enum: [...writerThreadModes],
          description:
            "sqlite: commit blocks on a thread of their own, so the main thread keeps serving meanwhile (on), or on the main thread (off); auto: on with the solo engine, off under CometBFT (whose blocks come one at a time)",
        },
        read_indexes: {
          type: "boolean",
          description:
            "sqlite: write the text-search and field indexes (false: a validator that serves no reads; searches and queries by field then answer 409 ReadIndexesOff; back to true, the next start writes what is missing)",
        },
      },
    },
    engine: {
      type: "object",
      additionalProperties: false,
      required: ["kind", "block_interval_ms", "txs_per_block_max", "commit_timeout_ms", "chain_id", "abci_bind", "rpc_url", "cometbft_home", "cometbft_binary", "retain_blocks", "snapshot_interval", "snapshot_keep"],
      properties: {
        kind: { type: "string", enum: [...engineKinds], description: "Consensus engine (alias: engine)" },
        block_interval_ms: durationMs(0, "A block is cut this long after its first transaction arrives"),
        txs_per_block_max: count(1, "A block is cut at once when this many transactions wait"),
        commit_timeout_ms: durationMs(1, "How long mode=commit waits for the block before answering 504"),
        chain_id: {
          type: "string",
          minLength: 1,
          maxLength: chainIdCharsMax,
          description: "Chain id recorded when a new database is initialised (cometbft: must be the genesis chain_id)",
        },
        abci_bind: {
          type: "string",
          format: "host-port",
          description: "cometbft: ABCI address CometBFT connects to (its proxy_app), HOST:PORT",
        },
        rpc_url: {
          type: "string",
          format: "http-url",
          description: "cometbft: CometBFT's RPC address (its rpc.laddr), http://HOST:PORT",
        },
        cometbft_home: {
          type: "string",
          description: "cometbft: CometBFT's home, to run it from ledgerd (started after the ABCI server, stopped first); empty: run it yourself",
        },
        cometbft_binary: {
          type: "string",
          description: "cometbft: the CometBFT binary ledgerd runs; empty: the package's .cache/bin/cometbft, else cometbft on PATH",
        },
        retain_blocks: count(0, "cometbft: CometBFT keeps this many last blocks (ABCI Commit's retain_height); 0: every block"),
        snapshot_interval: count(0, "cometbft: a state-sync snapshot of the ledger every this many blocks, served to joining nodes; 0: none (solo: ignored)"),
        snapshot_keep: count(1, "cometbft: state-sync snapshots kept, the latest"),
      },
    },
    ledger: {
      type: "object",
      additionalProperties: false,
      required: ["pending_txs_max", "prepared_cache_entries_max", "replay_batch_blocks_max", "prepare_batch_txs_max", "prepare_shared_txs_min"],
      properties: {
        pending_txs_max: count(1, "Transactions accepted and not yet committed (then 503)"),
        prepared_cache_entries_max: count(1, "Verified transactions cached by their exact bytes"),
        replay_batch_blocks_max: count(0, "cometbft: blocks of a catch-up made durable together at most (one fsync; HTTP workers see them then); 0: each on its own"),
        prepare_batch_txs_max: count(1, "Transactions sent to a verification thread at once"),
        prepare_shared_txs_min: count(1, "Transactions arriving together from which all verification threads share them, one at a time, instead of a batch each (a block)"),
      },
    },
    metrics: {
      type: "object",
      additionalProperties: false,
      required: ["bind"],
      properties: {
        bind: {
          type: "string",
          format: "optional-host-port",
          description: "Prometheus metrics address, HOST:PORT, served at /metrics (empty: no metrics)",
        },
      },
    },
    checkpoint: {
      type: "object",
      additionalProperties: false,
      required: ["origin", "witnesses", "witness_quorum"],
      properties: {
        origin: {
          type: "string",
          // A signed note's key name: no Unicode space, no `+` (docs/transparency.md).
          pattern: "^[^\\s+]*$",
          maxLength: checkpointOriginCharsMax,
          description: "The signed checkpoints' origin and key name, e.g. the tiles' URL without its scheme (empty: ledgerd.invalid/<chain id>)",
        },
        witnesses: {
          type: "string",
          maxLength: witnessLogsCharsMax,
          description: "Witnesses asked to cosign the latest checkpoint, comma-separated, each <cosignature verifier key>@<submission URL> (empty: none)",
        },
        witness_quorum: count(0, "Witness cosignatures that make a quorum; below it the checkpoint is served with those it has and asked again (0: every witness)"),
      },
    },
    witness: {
      type: "object",
      additionalProperties: false,
      required: ["logs", "name"],
      properties: {
        logs: {
          type: "string",
          maxLength: witnessLogsCharsMax,
          description: "Logs this node witnesses (POST /api/v1/witness/add-checkpoint): their signed-note verifier keys, comma-separated (empty: not a witness)",
        },
        name: {
          type: "string",
          pattern: "^[^\\s+]*$",
          maxLength: checkpointOriginCharsMax,
          description: "The witness's cosignature key name (empty: <checkpoint origin>/witness)",
        },
      },
    },
  },
};
