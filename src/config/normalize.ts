import { isAbsolute, resolve } from "node:path";
import { parseDuration } from "../util/duration.js";
import { CLIENT_FEATURE_KEYS, parseClientFeatures } from "./client-features.js";
import { DEFAULT_RESTART_POLICY, DEFAULT_SETTINGS } from "./defaults.js";
import { type ExpansionContext, expand } from "./env.js";
import {
  type AdmitProjectServer,
  type BridgeSettings,
  type ConfigFormat,
  type ConfigWarning,
  type EnvValue,
  type ImportSourceName,
  type OAuthSettings,
  type RestartPolicy,
  type ServerDefinition,
  VALUES_FROM_ENV,
} from "./model.js";

export interface NormalizeContext extends ExpansionContext {
  readonly file?: string;
  readonly format: ConfigFormat;
  /** Settings already in force (file settings when normalizing servers given in code). */
  readonly settings?: Partial<BridgeSettings>;
  /** Asked before an entry is expanded; a refused entry is left out (set only for project-level files). */
  readonly admit?: AdmitProjectServer;
}

export interface NormalizedServers {
  readonly servers: ServerDefinition[];
  readonly warnings: ConfigWarning[];
}

type Raw = Record<string, unknown>;

/** Raw keys we read, in every spelling; anything else in a server entry is warned about and dropped. */
const KNOWN_KEYS = new Set([
  ...CLIENT_FEATURE_KEYS,
  "name",
  "type",
  "transport",
  "command",
  "args",
  "env",
  "cwd",
  "url",
  "headers",
  "enabled",
  "disabled",
  "required",
  "timeout",
  "callTimeout",
  "call_timeout",
  "tool_timeout_sec",
  "tool_timeout_ms",
  "startupTimeout",
  "startup_timeout",
  "startup_timeout_sec",
  "startup_timeout_ms",
  "tools",
  "include",
  "exclude",
  "includeTools",
  "include_tools",
  "excludeTools",
  "exclude_tools",
  "enabled_tools",
  "disabled_tools",
  "maxResultChars",
  "max_result_chars",
  "lazy",
  "idleTimeout",
  "idle_timeout",
  "maxConcurrency",
  "max_concurrency",
  "restart",
  "healthCheckInterval",
  "health_check_interval",
  "negotiation",
  "protocol",
  "protocolVersion",
  "protocol_version",
  "maxMessageBytes",
  "max_message_bytes",
  "oauth",
  "bearerToken",
  "bearer_token",
  "bearer_token_env_var",
  "http_headers",
  "env_http_headers",
  "env_vars",
  "inheritEnv",
  "inherit_env",
]);
/** Keys other hosts write that mean nothing to a bridge; dropped without a warning. */
const IGNORED_KEYS = new Set([
  "autoApprove",
  "alwaysAllow",
  "description",
  "trust",
  "disabledTools",
  "$schema",
  "dev",
]);

const TRANSPORT_ALIASES: Record<string, "stdio" | "http" | "sse"> = {
  stdio: "stdio",
  sse: "sse",
  http: "http",
  "streamable-http": "http",
  streamablehttp: "http",
  streamable_http: "http",
};

/** Thrown inside entry normalization; becomes a warning naming server and field. */
class EntryProblem extends Error {
  constructor(
    readonly field: string,
    message: string,
    readonly kind: ConfigWarning["kind"] = "invalid-entry",
  ) {
    super(message);
  }
}

export function normalizeSettings(
  raw: Raw | undefined,
  warnings: ConfigWarning[],
  file?: string,
): Partial<BridgeSettings> {
  if (!raw) return {};
  const settings: { -readonly [K in keyof BridgeSettings]?: BridgeSettings[K] } = {};
  const read = (keys: string[]) => {
    for (const key of keys) if (raw[key] !== undefined) return { key, value: raw[key] };
    return undefined;
  };
  const fail = (field: string, message: string) =>
    warnings.push({
      kind: "other",
      field,
      message: `Setting "${field}" ${message}; using the default`,
      ...(file ? { file } : {}),
    });
  const bool = (keys: string[], apply: (value: boolean) => void) => {
    const found = read(keys);
    if (!found) return;
    if (typeof found.value === "boolean") apply(found.value);
    else fail(found.key, "must be true or false");
  };
  const duration = (keys: string[], unit: "s" | "ms", apply: (ms: number) => void) => {
    const found = read(keys);
    if (!found) return;
    try {
      apply(parseDuration(found.value, unit));
    } catch (error) {
      fail(found.key, (error as Error).message);
    }
  };
  bool(["enabled"], (value) => {
    settings.enabled = value;
  });
  bool(["resourceTools", "resource_tools"], (value) => {
    settings.resourceTools = value;
  });
  bool(["autoReload", "auto_reload"], (value) => {
    settings.autoReload = value;
  });
  const format = read(["toolNameFormat", "tool_name_format"]);
  if (format) {
    if (typeof format.value === "string" && format.value.includes("{tool}"))
      settings.toolNameFormat = format.value;
    else fail(format.key, 'must be a string containing "{tool}"');
  }
  const prefix = read(["descriptionPrefix", "description_prefix"]);
  if (prefix) {
    if (typeof prefix.value === "string") settings.descriptionPrefix = prefix.value;
    else if (prefix.value === false) settings.descriptionPrefix = "";
    else fail(prefix.key, "must be a string (empty or false turns it off)");
  }
  const max = read(["maxResultChars", "max_result_chars"]);
  if (max) {
    if (typeof max.value === "number" && Number.isInteger(max.value) && max.value > 0)
      settings.maxResultChars = max.value;
    else fail(max.key, "must be a positive integer");
  }
  duration(["startupTimeout", "startup_timeout"], "s", (ms) => {
    settings.startupTimeoutMs = ms;
  });
  duration(["callTimeout", "call_timeout", "timeout"], "s", (ms) => {
    settings.callTimeoutMs = ms;
  });
  duration(["healthCheckInterval", "health_check_interval"], "s", (ms) => {
    settings.healthCheckIntervalMs = ms;
  });
  const features = parseClientFeatures(
    (...keys) => read(keys),
    (field, message) => fail(field, message.replace(/^"[^"]*" /, "")),
  );
  if (features.roots) settings.roots = features.roots;
  if (features.sampling) settings.sampling = features.sampling;
  const imports = read(["imports"]);
  if (imports) {
    const valid: ImportSourceName[] = ["claude-code", "claude-desktop", "cursor", "vscode", "codex"];
    if (
      Array.isArray(imports.value) &&
      imports.value.every((item) => valid.includes(item as ImportSourceName))
    ) {
      settings.imports = imports.value as ImportSourceName[];
    } else fail("imports", `must be a list of ${valid.join(", ")}`);
  }
  return settings;
}

/** Normalizes a map (or TOML array) of raw server entries into definitions, skipping bad ones. */
export function normalizeServers(
  entries: ReadonlyArray<readonly [string, unknown]>,
  context: NormalizeContext,
): NormalizedServers {
  const settings = { ...DEFAULT_SETTINGS, ...context.settings };
  const servers: ServerDefinition[] = [];
  const warnings: ConfigWarning[] = [];
  const seen = new Set<string>();
  for (const [name, raw] of entries) {
    const where = context.file ? { file: context.file } : {};
    if (typeof name !== "string" || name.trim() === "") {
      warnings.push({
        kind: "invalid-entry",
        field: "name",
        message: "A server entry has no name; it was skipped",
        ...where,
      });
      continue;
    }
    if (seen.has(name)) {
      warnings.push({
        kind: "duplicate-server",
        server: name,
        message: `Server "${name}" is defined more than once; the first definition is used`,
        ...where,
      });
      continue;
    }
    seen.add(name);
    if (context.admit && !context.admit({ file: context.file ?? "", name, definition: raw })) {
      warnings.push({
        kind: "untrusted",
        server: name,
        message: `Server "${name}" from the project file ${context.file ?? "(unknown)"} is not approved; it was left out. Approve it with \`mcp-bridge trust\` (or --trust-project)`,
        ...where,
      });
      continue;
    }
    try {
      if (!raw || typeof raw !== "object" || Array.isArray(raw))
        throw new EntryProblem("(entry)", "must be an object");
      servers.push(normalizeEntry(name, raw as Raw, context, settings, warnings));
    } catch (error) {
      if (!(error instanceof EntryProblem)) throw error;
      warnings.push({
        kind: error.kind,
        server: name,
        field: error.field,
        message: `Server "${name}" was skipped: ${error.message}`,
        ...where,
      });
    }
  }
  return { servers, warnings };
}

function normalizeEntry(
  name: string,
  raw: Raw,
  context: NormalizeContext,
  settings: BridgeSettings,
  warnings: ConfigWarning[],
): ServerDefinition {
  for (const key of Object.keys(raw)) {
    if (KNOWN_KEYS.has(key) || IGNORED_KEYS.has(key)) continue;
    warnings.push({
      kind: "unknown-key",
      server: name,
      field: key,
      message: `Server "${name}": unknown key "${key}" was ignored`,
      ...(context.file ? { file: context.file } : {}),
    });
  }
  const fromEnv: EnvValue[] = [];
  const text = (field: string, value: unknown): string => {
    if (typeof value !== "string") throw new EntryProblem(field, `"${field}" must be a string`);
    const expanded = expand(value, context, fromEnv);
    if (expanded.ok) return expanded.value;
    if (expanded.reason === "input") {
      throw new EntryProblem(
        field,
        `"${field}" uses \${${expanded.variable}}, a VS Code input prompt, which mcp-bridge cannot ask for; put the value in an env variable instead`,
        "unsupported-input",
      );
    }
    throw new EntryProblem(
      field,
      `"${field}" uses \${${expanded.variable}}, which is not set; set it or write \${${expanded.variable}:-default}`,
      "unset-variable",
    );
  };
  const record = (field: string, value: unknown): Record<string, string> => {
    if (value === undefined) return {};
    if (!value || typeof value !== "object" || Array.isArray(value))
      throw new EntryProblem(field, `"${field}" must be a table of strings`);
    const result: Record<string, string> = {};
    for (const [key, item] of Object.entries(value)) {
      const asText = typeof item === "number" || typeof item === "boolean" ? String(item) : item;
      result[key] = text(`${field}.${key}`, asText);
    }
    return result;
  };
  const list = (field: string, value: unknown): string[] => {
    if (value === undefined) return [];
    if (!Array.isArray(value)) throw new EntryProblem(field, `"${field}" must be a list of strings`);
    return value.map((item, index) =>
      text(`${field}[${index}]`, typeof item === "number" ? String(item) : item),
    );
  };
  const pick = (...keys: string[]): { key: string; value: unknown } | undefined => {
    for (const key of keys) if (raw[key] !== undefined) return { key, value: raw[key] };
    return undefined;
  };
  const bool = (fallback: boolean, ...keys: string[]): boolean => {
    const found = pick(...keys);
    if (!found) return fallback;
    if (typeof found.value !== "boolean")
      throw new EntryProblem(found.key, `"${found.key}" must be true or false`);
    return found.value;
  };
  const duration = (fallback: number, unit: "s" | "ms", ...keys: string[]): number => {
    const found = pick(...keys);
    if (!found) return fallback;
    const unitFor = found.key.endsWith("_ms") ? "ms" : unit;
    try {
      return parseDuration(found.value, unitFor);
    } catch (error) {
      throw new EntryProblem(found.key, `"${found.key}" ${(error as Error).message}`);
    }
  };
  const optionalDuration = (...keys: string[]): number | undefined => {
    const found = pick(...keys);
    return found ? duration(0, "s", found.key) : undefined;
  };
  const positiveInt = (...keys: string[]): number | undefined => {
    const found = pick(...keys);
    if (!found) return undefined;
    if (typeof found.value !== "number" || !Number.isInteger(found.value) || found.value <= 0) {
      throw new EntryProblem(found.key, `"${found.key}" must be a positive integer`);
    }
    return found.value;
  };

  // Transport: explicit, or inferred from command / url.
  const declared = pick("type", "transport");
  let transport: "stdio" | "http" | "sse" | undefined;
  if (declared) {
    if (typeof declared.value !== "string" || !TRANSPORT_ALIASES[declared.value.toLowerCase()]) {
      throw new EntryProblem(
        declared.key,
        `unknown transport ${JSON.stringify(declared.value)} (use stdio, http or sse)`,
      );
    }
    transport = TRANSPORT_ALIASES[declared.value.toLowerCase()];
  }
  const hasCommand = raw.command !== undefined;
  const hasUrl = raw.url !== undefined;
  if (!transport) {
    if (hasCommand) transport = "stdio";
    else if (hasUrl) transport = "http";
    else throw new EntryProblem("command", 'has neither "command" nor "url"');
  }

  const enabled = raw.disabled === true ? false : bool(true, "enabled");
  if (raw.disabled !== undefined && typeof raw.disabled !== "boolean")
    throw new EntryProblem("disabled", '"disabled" must be true or false');
  const restartRaw = raw.restart;
  let restart: RestartPolicy = DEFAULT_RESTART_POLICY;
  if (restartRaw === false) restart = { ...DEFAULT_RESTART_POLICY, enabled: false };
  else if (restartRaw && typeof restartRaw === "object" && !Array.isArray(restartRaw)) {
    const r = restartRaw as Raw;
    const value = (keys: string[]) => keys.map((k) => r[k]).find((v) => v !== undefined);
    const asDuration = (keys: string[], fallback: number) => {
      const v = value(keys);
      if (v === undefined) return fallback;
      try {
        return parseDuration(v, "ms");
      } catch (error) {
        throw new EntryProblem(`restart.${keys[0]}`, `"restart.${keys[0]}" ${(error as Error).message}`);
      }
    };
    const attempts = value(["maxAttempts", "max_attempts"]);
    if (
      attempts !== undefined &&
      (typeof attempts !== "number" || !Number.isInteger(attempts) || attempts < 0)
    ) {
      throw new EntryProblem(
        "restart.maxAttempts",
        '"restart.maxAttempts" must be a whole number (0 = unlimited)',
      );
    }
    const on = value(["enabled"]);
    restart = {
      enabled: on === undefined ? true : on === true,
      maxAttempts: (attempts as number | undefined) ?? DEFAULT_RESTART_POLICY.maxAttempts,
      initialDelayMs: asDuration(["initialDelay", "initial_delay"], DEFAULT_RESTART_POLICY.initialDelayMs),
      maxDelayMs: asDuration(["maxDelay", "max_delay"], DEFAULT_RESTART_POLICY.maxDelayMs),
      stablePeriodMs: asDuration(["stablePeriod", "stable_period"], DEFAULT_RESTART_POLICY.stablePeriodMs),
    };
  } else if (restartRaw !== undefined && restartRaw !== true) {
    throw new EntryProblem("restart", '"restart" must be true, false or a table');
  }

  const toolsRaw = raw.tools;
  if (
    toolsRaw !== undefined &&
    (typeof toolsRaw !== "object" || toolsRaw === null || Array.isArray(toolsRaw))
  ) {
    throw new EntryProblem("tools", '"tools" must be a table with "include" and/or "exclude" lists');
  }
  const toolsTable = (toolsRaw ?? {}) as Raw;
  const patterns = (field: string, value: unknown): string[] => {
    if (value === undefined) return [];
    if (!Array.isArray(value) || !value.every((item) => typeof item === "string")) {
      throw new EntryProblem(field, `"${field}" must be a list of tool names or globs`);
    }
    return value as string[];
  };
  const include = [
    ...patterns("tools.include", toolsTable.include),
    ...patterns("include", raw.include),
    ...patterns("includeTools", raw.includeTools ?? raw.include_tools),
    ...patterns("enabled_tools", raw.enabled_tools),
  ];
  const exclude = [
    ...patterns("tools.exclude", toolsTable.exclude),
    ...patterns("exclude", raw.exclude),
    ...patterns("excludeTools", raw.excludeTools ?? raw.exclude_tools),
    ...patterns("disabled_tools", raw.disabled_tools),
  ];

  const negotiationRaw = pick("negotiation", "protocol", "protocolVersion", "protocol_version");
  let negotiation: ServerDefinition["negotiation"] = transport === "stdio" ? "legacy" : "auto";
  if (negotiationRaw) {
    const value = negotiationRaw.value;
    if (value === "legacy" || value === "auto") negotiation = value;
    else if (typeof value === "string" && /^\d{4}-\d{2}-\d{2}$/.test(value)) negotiation = { pin: value };
    else
      throw new EntryProblem(
        negotiationRaw.key,
        `"${negotiationRaw.key}" must be "legacy", "auto" or a protocol version like "2026-07-28"`,
      );
  }

  const maxResultChars = positiveInt("maxResultChars", "max_result_chars");
  const idleTimeoutMs = optionalDuration("idleTimeout", "idle_timeout");
  const maxConcurrency = positiveInt("maxConcurrency", "max_concurrency");
  const base = {
    name,
    enabled,
    required: bool(false, "required"),
    startupTimeoutMs: duration(
      settings.startupTimeoutMs,
      "s",
      "startupTimeout",
      "startup_timeout",
      "startup_timeout_sec",
      "startup_timeout_ms",
    ),
    callTimeoutMs: duration(
      settings.callTimeoutMs,
      "s",
      "callTimeout",
      "call_timeout",
      "timeout",
      "tool_timeout_sec",
      "tool_timeout_ms",
    ),
    tools: { include, exclude },
    lazy: bool(false, "lazy"),
    restart,
    negotiation,
    ...(maxResultChars === undefined ? {} : { maxResultChars }),
    ...(idleTimeoutMs ? { idleTimeoutMs } : {}),
    ...(maxConcurrency === undefined ? {} : { maxConcurrency }),
    ...parseClientFeatures(pick, (field, message) => {
      throw new EntryProblem(field, message);
    }),
    ...(context.file ? { source: { file: context.file, format: context.format } } : {}),
    [VALUES_FROM_ENV]: fromEnv,
  };

  if (transport === "stdio") {
    if (!hasCommand) throw new EntryProblem("command", 'uses transport "stdio" but has no "command"');
    let command: string;
    let prefixArgs: string[] = [];
    if (Array.isArray(raw.command)) {
      const parts = list("command", raw.command);
      if (parts.length === 0 || !parts[0]) throw new EntryProblem("command", '"command" must not be empty');
      [command, ...prefixArgs] = parts as [string, ...string[]];
    } else command = text("command", raw.command);
    if (command.trim() === "") throw new EntryProblem("command", '"command" must not be empty');
    const inheritRaw = pick("inheritEnv", "inherit_env");
    let inheritEnv: boolean | string[] = false;
    if (inheritRaw) {
      if (typeof inheritRaw.value === "boolean") inheritEnv = inheritRaw.value;
      else inheritEnv = patterns(inheritRaw.key, inheritRaw.value);
    }
    if (raw.env_vars !== undefined) {
      const names = patterns("env_vars", raw.env_vars);
      inheritEnv = inheritEnv === true ? true : [...(inheritEnv || []), ...names];
    }
    let cwd = raw.cwd === undefined ? undefined : text("cwd", raw.cwd);
    if (cwd !== undefined && !isAbsolute(cwd) && context.configDir) cwd = resolve(context.configDir, cwd);
    const maxMessageBytes = positiveInt("maxMessageBytes", "max_message_bytes");
    return {
      ...base,
      transport: "stdio",
      command,
      args: [...prefixArgs, ...list("args", raw.args)],
      env: record("env", raw.env),
      ...(cwd === undefined ? {} : { cwd }),
      inheritEnv,
      healthCheckIntervalMs: duration(0, "s", "healthCheckInterval", "health_check_interval"),
      ...(maxMessageBytes === undefined ? {} : { maxMessageBytes }),
    };
  }

  if (!hasUrl) throw new EntryProblem("url", `uses transport "${transport}" but has no "url"`);
  const url = text("url", raw.url);
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw new Error("not http");
  } catch {
    throw new EntryProblem("url", '"url" must be an http:// or https:// URL');
  }
  if (!declared && /\/sse\/?$/.test(new URL(url).pathname)) transport = "sse";
  const headers = { ...record("headers", raw.headers), ...record("http_headers", raw.http_headers) };
  const envHeaders = raw.env_http_headers;
  if (envHeaders !== undefined) {
    if (!envHeaders || typeof envHeaders !== "object" || Array.isArray(envHeaders))
      throw new EntryProblem("env_http_headers", '"env_http_headers" must be a table of header = ENV_VAR');
    for (const [header, variable] of Object.entries(envHeaders)) {
      if (typeof variable !== "string")
        throw new EntryProblem(`env_http_headers.${header}`, "must name an environment variable");
      const value = context.env[variable];
      if (value === undefined)
        throw new EntryProblem(
          `env_http_headers.${header}`,
          `header "${header}" comes from \${${variable}}, which is not set`,
          "unset-variable",
        );
      headers[header] = value;
      fromEnv.push({ variable, value });
    }
  }
  const bearer = pick("bearerToken", "bearer_token");
  if (bearer) headers.Authorization = `Bearer ${text(bearer.key, bearer.value)}`;
  if (raw.bearer_token_env_var !== undefined) {
    const variable = raw.bearer_token_env_var;
    if (typeof variable !== "string")
      throw new EntryProblem("bearer_token_env_var", "must name an environment variable");
    const token = context.env[variable];
    if (token === undefined)
      throw new EntryProblem(
        "bearer_token_env_var",
        `the bearer token comes from \${${variable}}, which is not set`,
        "unset-variable",
      );
    headers.Authorization = `Bearer ${token}`;
    fromEnv.push({ variable, value: token });
  }
  const oauth = normalizeOAuth(raw.oauth, text);
  return {
    ...base,
    transport,
    url,
    headers,
    fallbackToSse: !declared && transport === "http",
    healthCheckIntervalMs: duration(
      settings.healthCheckIntervalMs,
      "s",
      "healthCheckInterval",
      "health_check_interval",
    ),
    ...(oauth ? { oauth } : {}),
  };
}

function normalizeOAuth(
  value: unknown,
  text: (field: string, value: unknown) => string,
): OAuthSettings | undefined {
  if (value === undefined) return undefined;
  if (!value || typeof value !== "object" || Array.isArray(value))
    throw new EntryProblem("oauth", '"oauth" must be a table');
  const raw = value as Raw;
  const get = (...keys: string[]) => keys.map((key) => raw[key]).find((v) => v !== undefined);
  const optional = (field: string, ...keys: string[]) => {
    const v = get(...keys);
    return v === undefined ? undefined : text(`oauth.${field}`, v);
  };
  const scopes = get("scopes", "scope");
  const grant = get("grant", "grantType", "grant_type");
  if (
    grant !== undefined &&
    grant !== "authorization_code" &&
    grant !== "client_credentials" &&
    grant !== "cross_app_access" &&
    grant !== "jwt_bearer"
  ) {
    throw new EntryProblem(
      "oauth.grant",
      '"oauth.grant" must be "authorization_code", "client_credentials", "cross_app_access" or "jwt_bearer"',
    );
  }
  const idpRaw = raw.idp;
  let idp: Record<string, string> | undefined;
  if (idpRaw !== undefined) {
    if (!idpRaw || typeof idpRaw !== "object" || Array.isArray(idpRaw)) {
      throw new EntryProblem("oauth.idp", '"oauth.idp" must be a table');
    }
    const table = idpRaw as Raw;
    const field = (name: string, ...keys: string[]) => {
      const found = keys.map((key) => table[key]).find((v) => v !== undefined);
      return found === undefined ? undefined : text(`oauth.idp.${name}`, found);
    };
    const entries = {
      tokenEndpoint: field("tokenEndpoint", "tokenEndpoint", "token_endpoint"),
      issuer: field("issuer", "issuer"),
      idToken: field("idToken", "idToken", "id_token"),
      clientId: field("clientId", "clientId", "client_id"),
      clientSecret: field("clientSecret", "clientSecret", "client_secret"),
    };
    if (!entries.idToken || !entries.clientId || !(entries.tokenEndpoint || entries.issuer)) {
      throw new EntryProblem("oauth.idp", '"oauth.idp" needs idToken, clientId and tokenEndpoint or issuer');
    }
    idp = Object.fromEntries(Object.entries(entries).filter(([, v]) => v !== undefined)) as Record<
      string,
      string
    >;
  }
  const method = get("tokenEndpointAuthMethod", "token_endpoint_auth_method");
  const port = get("redirectPort", "redirect_port");
  const settings: Record<string, unknown> = {
    clientId: optional("clientId", "clientId", "client_id"),
    clientSecret: optional("clientSecret", "clientSecret", "client_secret"),
    clientMetadataUrl: optional("clientMetadataUrl", "clientMetadataUrl", "client_metadata_url"),
    scopes:
      typeof scopes === "string"
        ? scopes.split(/\s+/).filter(Boolean)
        : Array.isArray(scopes)
          ? scopes.map(String)
          : undefined,
    grant,
    tokenEndpointAuthMethod: method,
    privateKeyPem: optional("privateKeyPem", "privateKeyPem", "private_key_pem"),
    signingAlgorithm: optional("signingAlgorithm", "signingAlgorithm", "signing_algorithm"),
    redirectPort: typeof port === "number" ? port : undefined,
    idp,
    assertion: optional("assertion", "assertion"),
    issuer: optional("issuer", "issuer"),
  };
  return Object.fromEntries(Object.entries(settings).filter(([, v]) => v !== undefined)) as OAuthSettings;
}
