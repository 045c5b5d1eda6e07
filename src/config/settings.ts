import { dirname, resolve } from "node:path";
import { settingsInvalid } from "../errors/index.js";
import { didYouMean } from "../util/suggest.js";
import { parseClientFeatures } from "./client-features.js";
import { lookup, type Raw, READERS, readField, SETTINGS_FIELDS, SETTINGS_KEYS } from "./fields.js";
import type { BridgeSettings, ConfigWarning } from "./model.js";
import { readTrustSettings } from "./policy-keys.js";
import { EntryProblem } from "./problem.js";

type Mutable<T> = { -readonly [K in keyof T]?: T[K] };

/** Which BridgeSettings property each scalar setting fills (durations are kept in milliseconds). */
const TARGETS = {
  enabled: "enabled",
  autoReload: "autoReload",
  toolNameFormat: "toolNameFormat",
  descriptionPrefix: "descriptionPrefix",
  serveToolNameFormat: "serveToolNameFormat",
  maxResultChars: "maxResultChars",
  maxResultTokens: "maxResultTokens",
  resultOverflow: "resultOverflow",
  resultOverflowDir: "resultOverflowDir",
  resultOverflowMaxBytes: "resultOverflowMaxBytes",
  resultOverflowMaxAge: "resultOverflowMaxAgeMs",
  startupTimeout: "startupTimeoutMs",
  callTimeout: "callTimeoutMs",
  healthCheckInterval: "healthCheckIntervalMs",
  imports: "imports",
  registry: "registries",
  advisories: "advisories",
  resourceTools: "resourceTools",
  catalogCache: "catalogCache",
  onDrift: "onDrift",
  gatewayAdminTools: "gatewayAdminTools",
} as const satisfies Record<keyof typeof SETTINGS_FIELDS, keyof BridgeSettings>;

/**
 * Reads the global settings table. A bad value is a warning and the default stays in force: one typo
 * in a setting must not take every server down. `ignore` lists keys of the same table that are not
 * settings (TOML `[mcp]` also holds `servers`).
 */
export function normalizeSettings(
  raw: Raw | undefined,
  warnings: ConfigWarning[],
  file?: string,
  ignore: readonly string[] = [],
): Partial<BridgeSettings> {
  if (!raw) return {};
  const where = file ? { file } : {};
  const settings: Mutable<BridgeSettings> = {};
  for (const [key, target] of Object.entries(TARGETS) as [
    keyof typeof SETTINGS_FIELDS,
    keyof BridgeSettings,
  ][]) {
    try {
      const value = readField(raw, SETTINGS_FIELDS[key]);
      if (value !== undefined) (settings as Record<string, unknown>)[target] = value;
    } catch (error) {
      if (!(error instanceof EntryProblem)) throw error;
      warnings.push({
        kind: "other",
        field: error.field,
        message: `Setting ${error.message}; using the default`,
        ...where,
      });
    }
  }
  if (settings.advisories !== undefined && file)
    settings.advisories = resolve(dirname(file), settings.advisories);
  if (settings.resultOverflowDir !== undefined && file)
    settings.resultOverflowDir = resolve(dirname(file), settings.resultOverflowDir);
  const features = parseClientFeatures(
    (...keys) => lookup(raw, keys),
    (field, message) =>
      warnings.push({ kind: "other", field, message: `Setting ${message}; using the default`, ...where }),
  );
  if (features.roots) settings.roots = features.roots;
  if (features.sampling) settings.sampling = features.sampling;
  readTrustSettings(raw, file, settings, (field, message) =>
    warnings.push({ kind: "other", field, message, ...where }),
  );
  for (const key of Object.keys(raw)) {
    if (SETTINGS_KEYS.has(key) || ignore.includes(key)) continue;
    warnings.push({
      kind: "unknown-key",
      field: key,
      message: `Unknown setting "${key}" was ignored${didYouMean(key, SETTINGS_KEYS)}`,
      ...where,
    });
  }
  return settings;
}

/**
 * Settings given in code (the `settings` option): every key a settings table accepts (`callTimeout:
 * "1500ms"`, `call_timeout: 2`), plus the resolved names of `BridgeSettings` (`callTimeoutMs: 1500`).
 */
export type SettingsInput = Partial<BridgeSettings> | { readonly [key: string]: unknown };

/** `BridgeSettings` names that differ from the file key they fill (durations in milliseconds). */
const RESOLVED_DURATIONS = Object.entries(TARGETS).filter(([key, target]) => key !== target) as [
  keyof typeof SETTINGS_FIELDS,
  keyof BridgeSettings,
][];

/**
 * Reads settings given in code through the same readers as a file's settings table. Unlike a file (where
 * a typo must not take every server down) a bad key or value in code is a programming error: it throws
 * CONFIG_INVALID naming every problem instead of being ignored.
 */
export function normalizeCodeSettings(input: SettingsInput | undefined): Partial<BridgeSettings> {
  if (input === undefined) return {};
  const raw: Raw = { ...input };
  const resolved: Mutable<BridgeSettings> = {};
  const problems: string[] = [];
  for (const [key, target] of RESOLVED_DURATIONS) {
    if (raw[target] === undefined) continue;
    try {
      // The field's own reader (a timeout must be more than 0); a `_ms` key makes numbers milliseconds.
      const spec = SETTINGS_FIELDS[key];
      (resolved as Record<string, unknown>)[target] = READERS[spec.kind].read(raw[target], `${target}_ms`);
    } catch (error) {
      problems.push(`"${target}" ${(error as Error).message}`);
    }
    if (lookup(raw, [SETTINGS_FIELDS[key].name, ...SETTINGS_FIELDS[key].aliases]))
      problems.push(`"${target}" and "${key}" both set the same setting`);
    delete raw[target];
  }
  const warnings: ConfigWarning[] = [];
  const read = normalizeSettings(raw, warnings);
  problems.push(...warnings.map((warning) => warning.message.replace(/; using the default$/, "")));
  if (problems.length > 0) throw settingsInvalid({ problems });
  return { ...read, ...resolved };
}
