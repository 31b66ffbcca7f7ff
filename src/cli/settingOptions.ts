import { Option, type Command } from "commander";
import { configDefault } from "../config/defaults.js";
import { configFileEnv, configFileName } from "../config/loadConfig.js";
import { settingAliases, settingList, envNameOf, type Setting } from "../config/settingList.js";

/**
 * Adds `--config FILE` and one flag per setting to a command, or only the settings `keys` names
 * (a tool that reads two settings should not list fifty). The help shows each default from
 * `configDefault` (the modules' own defaults) and its env variable. No commander default is set:
 * a flag given is the only thing that makes a flag value, so env and file are not overridden by
 * defaults (precedence is loadConfig's business).
 */
export function addSettingOptions(command: Command, keys?: readonly string[]): Command {
  command.addOption(
    new Option(
      "--config <FILE>",
      `settings file (default: <data_dir>/${configFileName} when present; env ${configFileEnv})`,
    ),
  );
  const unknown = keys?.find((key) => !settingList.some((s) => s.key === key));
  if (unknown !== undefined) throw new Error(`no setting ${unknown}`);
  for (const setting of settingList) {
    if (keys === undefined || keys.includes(setting.key)) command.addOption(settingOption(setting));
  }
  if (keys !== undefined) return command;
  for (const [alias, key] of Object.entries(settingAliases)) {
    const target = settingList.find((s) => s.key === key);
    if (target === undefined) throw new Error(`alias ${alias} names no setting`);
    const description = `same as --${key} (env ${envNameOf(alias)})`;
    command.addOption(new Option(`--${alias} <${target.valueName}>`, description));
  }
  return command;
}

/** The setting flags a command was given, by setting key or alias, as typed. */
export function settingFlags(options: Readonly<Record<string, unknown>>): Record<string, string> {
  const flags: Record<string, string> = {};
  for (const [name, value] of Object.entries(options)) {
    if (typeof value === "string" && (name === "config" || isSettingName(name))) flags[name] = value;
  }
  return flags;
}

/** `Settings:` for the top-level help: every key, its env variable and its default. */
export function settingsHelp(): string {
  const rows = settingList.map((s) => [s.key, s.env, JSON.stringify(defaultOf(s.key))] as const);
  const widths = [0, 1].map((i) => Math.max(...rows.map((row) => row[i]!.length)));
  const lines = rows.map(
    ([key, env, value]) => `  ${key.padEnd(widths[0]!)}  ${env.padEnd(widths[1]!)}  ${value}`,
  );
  return [
    "",
    "Settings (config file < LEDGERD_* env < --flags; `ledgerd config` prints the effective ones):",
    ...lines,
    "",
    `  --engine and ${envNameOf("engine")} set engine.kind; "engine": "solo" in a file does too.`,
  ].join("\n");
}

function settingOption(setting: Setting): Option {
  const defaultText = JSON.stringify(defaultOf(setting.key));
  const description = `${setting.description} (default: ${defaultText}; env ${setting.env})`;
  return new Option(`${setting.flag} <${setting.valueName}>`, description);
}

function isSettingName(name: string): boolean {
  return name in settingAliases || settingList.some((s) => s.key === name);
}

function defaultOf(key: string): unknown {
  let node: unknown = configDefault;
  for (const name of key.split(".")) node = (node as Record<string, unknown>)[name];
  return node;
}
