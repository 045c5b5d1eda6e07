/**
 * Config keys for the client side of MCP (what servers may ask of us): the server's log level,
 * the roots it is shown and whether it may sample (ask our LLM for a completion). Pure: parsing only.
 */

export const LOG_LEVELS = [
  "debug",
  "info",
  "notice",
  "warning",
  "error",
  "critical",
  "alert",
  "emergency",
] as const;
export type ServerLogLevel = (typeof LOG_LEVELS)[number];

export interface SamplingPolicy {
  /** The server may send `sampling/createMessage` (default false: no server samples unless allowed). */
  readonly enabled: boolean;
  /** Cap on `maxTokens` of each request; a larger request is lowered to it. */
  readonly maxTokens?: number;
}

export interface ClientFeatures {
  readonly logLevel?: ServerLogLevel;
  /** Folders (absolute paths or file: URIs) shown to the server as roots. */
  readonly roots?: readonly string[];
  readonly sampling?: SamplingPolicy;
}

type Found = { key: string; value: unknown } | undefined;

/** Reads the client-feature keys of one raw entry (server or settings); `fail` throws or records. */
export function parseClientFeatures(
  pick: (...keys: string[]) => Found,
  fail: (field: string, message: string) => void,
): ClientFeatures {
  const features: { logLevel?: ServerLogLevel; roots?: string[]; sampling?: SamplingPolicy } = {};
  const level = pick("logLevel", "log_level");
  if (level) {
    if (typeof level.value === "string" && (LOG_LEVELS as readonly string[]).includes(level.value))
      features.logLevel = level.value as ServerLogLevel;
    else fail(level.key, `"${level.key}" must be one of ${LOG_LEVELS.join(", ")}`);
  }
  const roots = pick("roots");
  if (roots) {
    if (Array.isArray(roots.value) && roots.value.every((item) => typeof item === "string" && item !== ""))
      features.roots = roots.value as string[];
    else fail("roots", '"roots" must be a list of folder paths or file: URIs');
  }
  const sampling = pick("sampling");
  if (sampling) {
    const value = sampling.value;
    if (typeof value === "boolean") features.sampling = { enabled: value };
    else if (value && typeof value === "object" && !Array.isArray(value)) {
      const record = value as Record<string, unknown>;
      const enabled = record.enabled ?? true;
      const maxTokens = record.maxTokens ?? record.max_tokens;
      if (typeof enabled !== "boolean") fail("sampling", '"sampling.enabled" must be true or false');
      else if (
        maxTokens !== undefined &&
        !(typeof maxTokens === "number" && Number.isInteger(maxTokens) && maxTokens > 0)
      )
        fail("sampling", '"sampling.maxTokens" must be a positive integer');
      else
        features.sampling = {
          enabled,
          ...(typeof maxTokens === "number" ? { maxTokens } : {}),
        };
    } else fail("sampling", '"sampling" must be true, false or { enabled, maxTokens }');
  }
  return features;
}
