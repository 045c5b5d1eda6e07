import { didYouMean } from "../util/suggest.js";
import { parseClientFeatures } from "./client-features.js";
import { type FieldSpec, lookup, type Raw, readField, SETTINGS_FIELDS, SETTINGS_KEYS } from "./fields.js";
import type { BridgeSettings, ConfigWarning } from "./model.js";
import { EntryProblem } from "./problem.js";

type Mutable<T> = { -readonly [K in keyof T]?: T[K] };

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
  const read = <T>(spec: FieldSpec, apply: (value: T) => void) => {
    try {
      const value = readField(raw, spec);
      if (value !== undefined) apply(value as T);
    } catch (error) {
      if (!(error instanceof EntryProblem)) throw error;
      warnings.push({
        kind: "other",
        field: error.field,
        message: `Setting ${error.message}; using the default`,
        ...where,
      });
    }
  };
  const f = SETTINGS_FIELDS;
  read<boolean>(f.enabled, (v) => {
    settings.enabled = v;
  });
  read<boolean>(f.autoReload, (v) => {
    settings.autoReload = v;
  });
  read<string>(f.toolNameFormat, (v) => {
    settings.toolNameFormat = v;
  });
  read<string>(f.descriptionPrefix, (v) => {
    settings.descriptionPrefix = v;
  });
  read<number>(f.maxResultChars, (v) => {
    settings.maxResultChars = v;
  });
  read<number>(f.startupTimeout, (v) => {
    settings.startupTimeoutMs = v;
  });
  read<number>(f.callTimeout, (v) => {
    settings.callTimeoutMs = v;
  });
  read<number>(f.healthCheckInterval, (v) => {
    settings.healthCheckIntervalMs = v;
  });
  read<BridgeSettings["imports"]>(f.imports, (v) => {
    settings.imports = v;
  });
  read<boolean>(f.resourceTools, (v) => {
    settings.resourceTools = v;
  });
  read<boolean>(f.catalogCache, (v) => {
    settings.catalogCache = v;
  });
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
