import { configSchema } from "./schema.js";

/** One leaf of the settings, with the names it goes by outside a config file. */
export interface Setting {
  /** Dotted path in the config object: `server.bind`. */
  readonly key: string;
  /** `LEDGERD_SERVER_BIND`. */
  readonly env: string;
  /** `--server.bind`. */
  readonly flag: string;
  readonly type: "string" | "integer" | "boolean";
  /** What a flag's value looks like in `--help`: `HOST:PORT`, `MS`, `N`, `solo`, ... */
  readonly valueName: string;
  readonly description: string;
}

/**
 * Shorter names the issue gives for a setting: `engine` is both a value (`solo`) and the prefix
 * of the engine's settings, so the value lives at `engine.kind` and `--engine solo`,
 * `LEDGERD_ENGINE=solo` and `"engine": "solo"` in a file all set it.
 */
export const settingAliases: Readonly<Record<string, string>> = Object.freeze({ engine: "engine.kind" });

export const envPrefix = "LEDGERD_";

export function envNameOf(key: string): string {
  return envPrefix + key.replaceAll(".", "_").toUpperCase();
}

interface SchemaNode {
  readonly type?: string;
  readonly properties?: Readonly<Record<string, SchemaNode>>;
  readonly enum?: readonly string[];
  readonly format?: string;
  readonly description?: string;
}

/** Every leaf of `configSchema`, in schema order: one source for env names, flags and help. */
export const settingList: readonly Setting[] = Object.freeze(collect(configSchema as SchemaNode, ""));

function collect(node: SchemaNode, prefix: string): Setting[] {
  const out: Setting[] = [];
  for (const [name, child] of Object.entries(node.properties ?? {})) {
    const key = prefix === "" ? name : `${prefix}.${name}`;
    if (child.type === "object") {
      out.push(...collect(child, key));
      continue;
    }
    if (child.type !== "string" && child.type !== "integer" && child.type !== "boolean") {
      throw new Error(`setting ${key}: unsupported type`);
    }
    out.push(
      Object.freeze({
        key,
        env: envNameOf(key),
        flag: `--${key}`,
        type: child.type,
        valueName: valueNameOf(key, child),
        description: child.description ?? "",
      }),
    );
  }
  return out;
}

function valueNameOf(key: string, node: SchemaNode): string {
  if (node.enum !== undefined) return node.enum.join("|");
  if (node.type === "boolean") return "true|false";
  if (node.format === "host-port" || node.format === "optional-host-port") return "HOST:PORT";
  if (key.endsWith("_ms")) return "MS";
  if (key.endsWith("_bytes") || key.endsWith("_bytes_max")) return "BYTES";
  if (node.type === "integer") return "N";
  if (key.endsWith("path") || key.endsWith("_dir")) return "PATH";
  if (key.endsWith("_url")) return "URL";
  return "TEXT";
}
