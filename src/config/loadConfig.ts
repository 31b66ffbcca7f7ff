// Settings are read in this order, each overriding the one before (issue #7):
//   defaults (each module's options.ts) < config file < LEDGERD_* environment < command-line flags.
// The file is `--config FILE` (or LEDGERD_CONFIG), else `<data_dir>/config.json` when present.
// The merged object is checked against `configSchema` (unknown keys and bad values stop start-up
// with a ConfigError naming every bad key, why, and where its value came from), paths are made
// absolute, and the result is frozen.
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import type { ErrorObject } from "ajv";
import { ConfigError, type ConfigProblem } from "./configError.js";
import { configDefault, deepFreeze } from "./defaults.js";
import { validate as generatedConfigValidator } from "./configValidator.generated.js";
import type { Config } from "./schema.js";
import { settingsThatCannotWork } from "./settingsThatCannotWork.js";
import { envNameOf, envPrefix, settingAliases, settingList, type Setting } from "./settingList.js";

/** The file looked for in data_dir when no `--config` is given (`ledgerd init` writes it). */
export const configFileName = "config.json";
/** The env variable naming a config file, like `--config`. */
export const configFileEnv = `${envPrefix}CONFIG`;
/**
 * Other LEDGERD_* variables are refused (a typo must not silently leave a default in force),
 * except these, which belong to the project's tooling rather than the node.
 */
const envReservedPrefix = `${envPrefix}TEST_`;

export interface ConfigSources {
  /** The process environment; only `LEDGERD_*` names are read. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Flag values by setting key or alias (`server.bind`, `engine`), as typed; `config` names the file. */
  readonly flags: Readonly<Record<string, string | undefined>>;
}

export interface ConfigDeps {
  /** The file's text, or null when it does not exist. */
  readonly readFile: (path: string) => string | null;
  readonly cwd: string;
  /** What `~` stands for at the start of a path. */
  readonly homeDir: string;
}

// ajv's code for the schema, made once by `npm run generate:validators` (scripts/validatorCode.ts)
// rather than compiled in each process that loads settings (~0.1 s of CPU each). The generated
// module is not type-checked (it is ajv's output), so its export is given its type here.
const validateConfig = generatedConfigValidator as unknown as ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };

const settingByKey = new Map<string, Setting>(settingList.map((s) => [s.key, s]));

type Mutable = Record<string, unknown>;

export function loadConfig(sources: ConfigSources, deps: ConfigDeps = defaultDeps()): Config {
  const problems: ConfigProblem[] = [];
  const origin = new Map<string, string>();
  const env = settingsFromEnv(sources.env, problems);
  const flags = settingsFromFlags(sources.flags, problems);

  const merged = structuredClone(configDefault) as unknown as Mutable;
  const dataDirEarly = flags.get("data_dir")?.text ?? env.get("data_dir")?.text ?? configDefault.data_dir;
  const explicitFile = sources.flags["config"] ?? sources.env[configFileEnv];
  const file = readConfigFile(explicitFile, resolvePath(dataDirEarly, deps), deps, problems);
  if (file !== null) mergeObject(merged, file.settings, "", `file ${file.path}`, origin);
  for (const [key, value] of [...env, ...flags]) {
    const typed = parseValue(key, value.text, value.source, problems);
    if (typed !== undefined) setPath(merged, key, typed, value.source, origin);
  }

  if (!validateConfig(merged)) {
    for (const error of validateConfig.errors ?? []) problems.push(problemOf(error, origin));
  } else {
    problems.push(...settingsThatCannotWork(merged as unknown as Config, (key) => sourceOf(key, origin)));
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return deepFreeze(resolvePaths(merged as unknown as Config, deps));
}

function defaultDeps(): ConfigDeps {
  return {
    readFile: (path) => {
      try {
        return readFileSync(path, "utf8");
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
        throw error;
      }
    },
    cwd: process.cwd(),
    homeDir: homedir(),
  };
}

interface RawValue {
  readonly text: string;
  readonly source: string;
}

function settingsFromEnv(env: ConfigSources["env"], problems: ConfigProblem[]): Map<string, RawValue> {
  const out = new Map<string, RawValue>();
  const byEnv = new Map<string, string>(settingList.map((s) => [s.env, s.key]));
  for (const [alias, key] of Object.entries(settingAliases)) byEnv.set(envNameOf(alias), key);
  for (const [name, text] of Object.entries(env)) {
    if (!name.startsWith(envPrefix) || text === undefined) continue;
    if (name === configFileEnv || name.startsWith(envReservedPrefix)) continue;
    const key = byEnv.get(name);
    if (key === undefined) {
      const reason = `unknown variable${suggest(name, [...byEnv.keys()])}`;
      problems.push({ key: name, reason, source: "env" });
      continue;
    }
    addRaw(out, key, { text, source: `env ${name}` }, problems);
  }
  return out;
}

function settingsFromFlags(flags: ConfigSources["flags"], problems: ConfigProblem[]): Map<string, RawValue> {
  const out = new Map<string, RawValue>();
  for (const [name, text] of Object.entries(flags)) {
    if (name === "config" || text === undefined) continue;
    const key = settingAliases[name] ?? name;
    if (!settingByKey.has(key)) {
      const reason = `unknown setting${suggest(name, [...settingByKey.keys()])}`;
      problems.push({ key: name, reason, source: "flags" });
      continue;
    }
    addRaw(out, key, { text, source: `flag --${name}` }, problems);
  }
  return out;
}

/** A setting given twice at the same level (`--engine` and `--engine.kind`) must agree. */
function addRaw(out: Map<string, RawValue>, key: string, value: RawValue, problems: ConfigProblem[]): void {
  const earlier = out.get(key);
  if (earlier !== undefined && earlier.text !== value.text) {
    problems.push({ key, reason: `conflicts with ${earlier.source}=${earlier.text}`, source: value.source });
    return;
  }
  out.set(key, value);
}

/** Env and flag values are text; integers must be written as plain decimal integers. */
function parseValue(key: string, text: string, source: string, problems: ConfigProblem[]): unknown {
  const setting = settingByKey.get(key);
  if (setting === undefined || setting.type === "string") return text;
  if (setting.type === "boolean") {
    if (text.trim() === "true") return true;
    if (text.trim() === "false") return false;
    problems.push({ key, reason: `must be true or false, got ${JSON.stringify(text)}`, source });
    return undefined;
  }
  if (!/^-?(?:0|[1-9][0-9]*)$/.test(text.trim())) {
    problems.push({ key, reason: `must be an integer, got ${JSON.stringify(text)}`, source });
    return undefined;
  }
  return Number(text.trim());
}

interface ConfigFile {
  readonly path: string;
  readonly settings: Mutable;
}

function readConfigFile(
  explicit: string | undefined,
  dataDir: string,
  deps: ConfigDeps,
  problems: ConfigProblem[],
): ConfigFile | null {
  const path = explicit === undefined ? join(dataDir, configFileName) : resolvePath(explicit, deps);
  const source = `file ${path}`;
  let text: string | null;
  try {
    text = deps.readFile(path);
  } catch (error) {
    problems.push({ key: "config file", reason: `cannot be read: ${(error as Error).message}`, source });
    return null;
  }
  if (text === null) {
    // An absent <data_dir>/config.json is normal (defaults); an absent --config FILE is a mistake.
    if (explicit !== undefined) problems.push({ key: "config file", reason: "does not exist", source });
    return null;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    problems.push({ key: "config file", reason: `is not valid JSON: ${(error as Error).message}`, source });
    return null;
  }
  if (!isPlainObject(parsed)) {
    problems.push({ key: "config file", reason: "must hold a JSON object", source });
    return null;
  }
  // `"engine": "solo"` is the short form of `"engine": {"kind": "solo"}` (see settingAliases).
  if (typeof parsed["engine"] === "string") parsed["engine"] = { kind: parsed["engine"] };
  // The file in data_dir cannot move data_dir: it would no longer be the file in data_dir.
  if (explicit === undefined && "data_dir" in parsed) {
    problems.push({ key: "data_dir", reason: "cannot be set in the config file inside data_dir", source });
    delete parsed["data_dir"];
  }
  return { path, settings: parsed };
}

function mergeObject(
  target: Mutable,
  from: Mutable,
  prefix: string,
  source: string,
  origin: Map<string, string>,
): void {
  for (const [name, value] of Object.entries(from)) {
    const key = prefix === "" ? name : `${prefix}.${name}`;
    // Own properties only: a file's "__proto__" must not reach Object.prototype.
    const current = Object.hasOwn(target, name) ? target[name] : undefined;
    if (isPlainObject(current) && isPlainObject(value)) {
      mergeObject(current, value, key, source, origin);
    } else {
      // defineProperty: a file's "__proto__" key stays a key (and is refused as unknown).
      Object.defineProperty(target, name, { value, enumerable: true, writable: true, configurable: true });
      origin.set(key, source);
    }
  }
}

function setPath(target: Mutable, key: string, value: unknown, source: string, origin: Map<string, string>): void {
  const names = key.split(".");
  let node = target;
  for (const name of names.slice(0, -1)) {
    const child = node[name];
    // The file may have put a non-object here; the flag or env value wins and the schema decides.
    if (!isPlainObject(child)) node[name] = Object.create(null) as Mutable;
    node = node[name] as Mutable;
  }
  node[names[names.length - 1]!] = value;
  origin.set(key, source);
}

function problemOf(error: ErrorObject, origin: Map<string, string>): ConfigProblem {
  const path = error.instancePath.split("/").slice(1).join(".");
  if (error.keyword === "additionalProperty" || error.keyword === "additionalProperties") {
    const name = String((error.params as { additionalProperty: string }).additionalProperty);
    const key = path === "" ? name : `${path}.${name}`;
    const reason = `unknown setting${suggest(key, [...settingByKey.keys()])}`;
    return { key, reason, source: sourceOf(key, origin) };
  }
  return { key: path === "" ? "(config)" : path, reason: reasonOf(error), source: sourceOf(path, origin) };
}

function reasonOf(error: ErrorObject): string {
  const got = ` (got ${JSON.stringify(error.data)})`;
  switch (error.keyword) {
    case "format":
      if ((error.params as { format?: string }).format === "http-url") return `must be an http:// URL, e.g. http://127.0.0.1:26657${got}`;
      if ((error.params as { format?: string }).format === "optional-host-port") {
        return `must be empty (off) or HOST:PORT, e.g. localhost:9986, with a port from 0 to 65535${got}`;
      }
      return `must be HOST:PORT, e.g. localhost:9984, with a port from 0 to 65535${got}`;
    case "enum":
      return `must be one of ${(error.params as { allowedValues: unknown[] }).allowedValues.join(", ")}${got}`;
    case "pattern":
      return `must be empty or a ws:// or wss:// URL${got}`;
    default:
      return `${error.message ?? error.keyword}${got}`;
  }
}

/** Where a key's value came from: the deepest key (or enclosing section) with a recorded source. */
function sourceOf(key: string, origin: Map<string, string>): string {
  for (let k = key; k !== ""; k = k.includes(".") ? k.slice(0, k.lastIndexOf(".")) : "") {
    const source = origin.get(k);
    if (source !== undefined) return source;
  }
  return "default";
}

function resolvePaths(config: Config, deps: ConfigDeps): Config {
  const dataDir = resolvePath(config.data_dir, deps);
  const databasePath = expandHome(config.database.path, deps);
  return {
    ...config,
    data_dir: dataDir,
    database: {
      ...config.database,
      path: isAbsolute(databasePath) ? databasePath : resolve(dataDir, databasePath),
    },
  };
}

function resolvePath(path: string, deps: ConfigDeps): string {
  return resolve(deps.cwd, expandHome(path, deps));
}

function expandHome(path: string, deps: ConfigDeps): string {
  if (path === "~") return deps.homeDir;
  if (path.startsWith("~/")) return join(deps.homeDir, path.slice(2));
  return path;
}

function isPlainObject(value: unknown): value is Mutable {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** ` (did you mean server.bind?)` when a known name is a few edits away. */
function suggest(name: string, known: readonly string[]): string {
  let best: string | null = null;
  let bestDistance = 4;
  for (const candidate of known) {
    const distance = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best === null ? "" : ` (did you mean ${best}?)`;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min(previous[j]! + 1, current[j - 1]! + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length]!;
}
