import { dirname, resolve } from "node:path";
import { didYouMean } from "../util/suggest.js";
import { parseClientFeatures } from "./client-features.js";
import { lookup, type Raw, readField, SETTINGS_FIELDS, SETTINGS_KEYS } from "./fields.js";
import type { BridgeSettings, ConfigWarning } from "./model.js";
import { EntryProblem } from "./problem.js";

type Mutable<T> = { -readonly [K in keyof T]?: T[K] };

/** Which BridgeSettings property each scalar setting fills (durations are kept in milliseconds). */
const TARGETS = {
  enabled: "enabled",
  autoReload: "autoReload",
  toolNameFormat: "toolNameFormat",
  descriptionPrefix: "descriptionPrefix",
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
  resourceTools: "resourceTools",
  catalogCache: "catalogCache",
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
  if (settings.resultOverflowDir !== undefined && file)
    settings.resultOverflowDir = resolve(dirname(file), settings.resultOverflowDir);
  const features = parseClientFeatures(
    (...keys) => lookup(raw, keys),
    (field, message) =>
      warnings.push({ kind: "other", field, message: `Setting ${message}; using the default`, ...where }),
  );
  if (features.roots) settings.roots = features.roots;
  if (features.sampling) settings.sampling = features.sampling;
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
