import { isAbsolute, resolve } from "node:path";
import { entryProblem } from "../errors/entry-problems.js";
import { omitUndefined } from "../util/defined.js";
import { didYouMean } from "../util/suggest.js";
import { parseClientFeatures } from "./client-features.js";
import { parseDotenv } from "./dotenv.js";
import { expand } from "./env.js";
import {
  type FieldSpec,
  IGNORED_SERVER_KEYS,
  lookup,
  type Raw,
  type ReaderKind,
  readField,
  SERVER_FIELDS,
  SERVER_KEYS,
  STRUCTURED,
  type ValueOf,
} from "./fields.js";
import { readConnect } from "./in-process-entry.js";
import { normalizeLimits } from "./limits-settings.js";
import {
  type BridgeSettings,
  type ConfigWarning,
  type EnvValue,
  type ServerDefinition,
  type ServerOrigin,
  type TransportKind,
  VALUES_FROM_ENV,
} from "./model.js";
import type { NormalizeContext } from "./normalize.js";
import { normalizeOAuth } from "./oauth-settings.js";
import { EntryProblem } from "./problem.js";
import { readRestart } from "./restart-entry.js";
import { normalizeSandbox } from "./sandbox-settings.js";
import { originSchema } from "./structured.js";

const TRANSPORT_ALIASES: Record<string, TransportKind> = {
  stdio: "stdio",
  sse: "sse",
  http: "http",
  "streamable-http": "http",
  streamablehttp: "http",
  streamable_http: "http",
};

/** Expands and type-checks the strings of one entry, collecting the values taken from the environment. */
class EntryReader {
  readonly fromEnv: EnvValue[] = [];
  constructor(
    readonly raw: Raw,
    readonly context: NormalizeContext,
  ) {}

  field<K extends ReaderKind>(spec: FieldSpec<K>): ValueOf<K> | undefined {
    return readField(this.raw, spec);
  }

  text(field: string, value: unknown): string {
    if (typeof value !== "string") throw new EntryProblem(field, entryProblem.notString(field));
    const expanded = expand(value, this.context, this.fromEnv);
    if (expanded.ok) return expanded.value;
    if (expanded.reason === "input") {
      throw new EntryProblem(field, entryProblem.inputPrompt(field, expanded.variable), "unsupported-input");
    }
    if (expanded.reason === "secret") {
      throw new EntryProblem(
        field,
        entryProblem.secret(field, expanded.variable, expanded.error),
        "missing-secret",
      );
    }
    throw new EntryProblem(field, entryProblem.unsetVariable(field, expanded.variable), "unset-variable");
  }

  record(field: string, value: unknown): Record<string, string> {
    if (value === undefined) return {};
    if (!value || typeof value !== "object" || Array.isArray(value))
      throw new EntryProblem(field, entryProblem.notStringTable(field));
    const result: Record<string, string> = {};
    for (const [key, item] of Object.entries(value)) {
      const asText = typeof item === "number" || typeof item === "boolean" ? String(item) : item;
      result[key] = this.text(`${field}.${key}`, asText);
    }
    return result;
  }

  list(field: string, value: unknown): string[] {
    if (value === undefined) return [];
    if (!Array.isArray(value)) throw new EntryProblem(field, entryProblem.notStringList(field));
    return value.map((item, index) =>
      this.text(`${field}[${index}]`, typeof item === "number" ? String(item) : item),
    );
  }

  /** A variable named by the entry (Codex `env_http_headers`, `bearer_token_env_var`). */
  variable(field: string, variable: unknown, what: string): string {
    if (typeof variable !== "string") throw new EntryProblem(field, entryProblem.notVariableName());
    const value = this.context.env[variable];
    if (value === undefined)
      throw new EntryProblem(field, entryProblem.variableUnset(what, variable), "unset-variable");
    this.fromEnv.push({ variable, value });
    return value;
  }
}

function patterns(field: string, value: unknown): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((item) => typeof item === "string")) {
    throw new EntryProblem(field, entryProblem.notToolList(field));
  }
  return value as string[];
}

export function normalizeEntry(
  name: string,
  raw: Raw,
  context: NormalizeContext,
  settings: BridgeSettings,
  warnings: ConfigWarning[],
): ServerDefinition {
  warnUnknownKeys(name, raw, context, warnings);
  const reader = new EntryReader(raw, context);
  const f = SERVER_FIELDS;
  const connect = readConnect(raw);
  const declared = connect ? "in-process" : readTransport(raw);
  let transport = declared ?? inferTransport(raw);
  const disabled = reader.field(f.disabled);
  const maxResultChars = reader.field(f.maxResultChars);
  const maxResultTokens = reader.field(f.maxResultTokens);
  const idleTimeoutMs = reader.field(f.idleTimeout);
  const maxConcurrency = reader.field(f.maxConcurrency);
  const trust = reader.field(f.trust);
  const catalogCache = reader.field(f.catalogCache);
  const onDrift = reader.field(f.onDrift);
  const base = {
    name,
    enabled: disabled === true ? false : (reader.field(f.enabled) ?? true),
    required: reader.field(f.required) ?? false,
    startupTimeoutMs: reader.field(f.startupTimeout) ?? settings.startupTimeoutMs,
    callTimeoutMs: reader.field(f.callTimeout) ?? settings.callTimeoutMs,
    tools: readToolFilter(raw),
    tags: readTags(raw.tags),
    origin: readOrigin(raw.origin),
    lazy: reader.field(f.lazy),
    retryCrashedCalls: reader.field(f.retryCrashedCalls),
    restart: readRestart(raw.restart),
    negotiation: reader.field(f.negotiation) ?? (transport === "stdio" ? "legacy" : "auto"),
    maxResultChars,
    maxResultTokens,
    idleTimeoutMs: idleTimeoutMs || undefined,
    maxConcurrency,
    trust,
    catalogCache,
    onDrift,
    ...parseClientFeatures(
      (...keys) => lookup(raw, keys),
      (field, message) => {
        throw new EntryProblem(field, message);
      },
    ),
    source: context.file ? { file: context.file, format: context.format } : undefined,
    [VALUES_FROM_ENV]: reader.fromEnv,
  };

  if (connect) {
    const healthCheckIntervalMs = reader.field(f.healthCheckInterval) ?? settings.healthCheckIntervalMs;
    return omitUndefined({ ...base, transport: "in-process", connect, healthCheckIntervalMs });
  }
  if (transport === "stdio") {
    const { command, args } = readCommand(reader);
    const cwd = readCwd(reader);
    const maxMessageBytes = reader.field(f.maxMessageBytes);
    const sandbox = normalizeSandbox(
      reader.raw.sandbox,
      (field, value) => reader.text(field, value),
      reader.context.configDir,
    );
    // Absent optional fields stay absent: definitions are compared and printed (config show, reload diff).
    return omitUndefined({
      ...base,
      transport: "stdio",
      command,
      args,
      env: readEnv(reader),
      cwd,
      inheritEnv: readInheritEnv(raw),
      // Pinged like a remote server: a hung process (alive, not answering) is found and restarted.
      healthCheckIntervalMs: reader.field(f.healthCheckInterval) ?? settings.healthCheckIntervalMs,
      maxMessageBytes,
      sandbox,
      limits: normalizeLimits(reader.raw.limits, sandbox !== undefined),
    });
  }

  // A sandbox asked for and not applied would be a silent unsandboxed start: the entry is refused.
  if (raw.sandbox !== undefined && raw.sandbox !== false)
    throw new EntryProblem("sandbox", entryProblem.sandboxOnRemote());
  if (raw.limits !== undefined) throw new EntryProblem("limits", entryProblem.limitsOnRemote());
  const url = readUrl(reader, transport);
  if (!declared && /\/sse\/?$/.test(new URL(url).pathname)) transport = "sse";
  const oauth = normalizeOAuth(raw.oauth, (field, value) => reader.text(field, value));
  return omitUndefined({
    ...base,
    transport: transport as "http" | "sse",
    url,
    headers: readHeaders(reader),
    fallbackToSse: !declared && transport === "http",
    healthCheckIntervalMs: reader.field(f.healthCheckInterval) ?? settings.healthCheckIntervalMs,
    oauth,
    tokenRefreshMarginMs: reader.field(f.tokenRefreshMargin),
  });
}

function warnUnknownKeys(name: string, raw: Raw, context: NormalizeContext, warnings: ConfigWarning[]) {
  for (const key of Object.keys(raw)) {
    if (SERVER_KEYS.has(key) || IGNORED_SERVER_KEYS.includes(key) || key === "connect") continue;
    warnings.push(
      omitUndefined({
        kind: "unknown-key",
        server: name,
        field: key,
        message: `Server "${name}": unknown key "${key}" was ignored${didYouMean(key, SERVER_KEYS)}`,
        file: context.file || undefined,
      }),
    );
  }
}

/** The declared transport (`type` / `transport`), in any host's spelling. */
function readTransport(raw: Raw): TransportKind | undefined {
  const declared = lookup(raw, STRUCTURED.transport.keys);
  if (!declared) return undefined;
  const kind =
    typeof declared.value === "string" ? TRANSPORT_ALIASES[declared.value.toLowerCase()] : undefined;
  if (!kind) {
    throw new EntryProblem(declared.key, entryProblem.unknownTransport(declared.value));
  }
  if (kind === "stdio" && raw.command === undefined)
    throw new EntryProblem("command", entryProblem.noCommand());
  if (kind !== "stdio" && raw.url === undefined) throw new EntryProblem("url", entryProblem.noUrl(kind));
  return kind;
}

/** No declared transport: `command` means stdio, `url` means Streamable HTTP (SSE for a `/sse` path). */
function inferTransport(raw: Raw): TransportKind {
  if (raw.command !== undefined) return "stdio";
  if (raw.url !== undefined) return "http";
  throw new EntryProblem("command", entryProblem.noCommandNorUrl());
}

/** `command` as a string, or as a list (program then its first arguments), then `args`. */
function readCommand(reader: EntryReader): { command: string; args: string[] } {
  const raw = reader.raw.command;
  let command: string;
  let prefixArgs: string[] = [];
  if (Array.isArray(raw)) {
    const parts = reader.list("command", raw);
    if (parts.length === 0 || !parts[0]) throw new EntryProblem("command", entryProblem.emptyCommand());
    [command, ...prefixArgs] = parts as [string, ...string[]];
  } else command = reader.text("command", raw);
  if (command.trim() === "") throw new EntryProblem("command", entryProblem.emptyCommand());
  return { command, args: [...prefixArgs, ...reader.list("args", reader.raw.args)] };
}

function readCwd(reader: EntryReader): string | undefined {
  if (reader.raw.cwd === undefined) return undefined;
  const cwd = reader.text("cwd", reader.raw.cwd);
  const dir = reader.context.configDir;
  return !isAbsolute(cwd) && dir ? resolve(dir, cwd) : cwd;
}

/** `envFile` (VS Code) read first, then `env` on top of it. */
function readEnv(reader: EntryReader): Record<string, string> {
  const found = lookup(reader.raw, STRUCTURED.envFile.keys);
  const fromFile: Record<string, string> = {};
  if (found) {
    const path = reader.text(found.key, found.value);
    const dir = reader.context.configDir;
    const file = !isAbsolute(path) && dir ? resolve(dir, path) : path;
    const read = reader.context.readFile;
    if (!read) throw new EntryProblem(found.key, entryProblem.noFileAccess(found.key));
    let text: string;
    try {
      text = read(file);
    } catch (error) {
      throw new EntryProblem(
        found.key,
        entryProblem.fileUnreadable(
          found.key,
          file,
          (error as NodeJS.ErrnoException).code ?? (error as Error).message,
        ),
      );
    }
    for (const [key, value] of Object.entries(parseDotenv(text))) {
      fromFile[key] = value;
      // An env file holds secrets as often as the environment does: mask them the same way.
      reader.fromEnv.push({ variable: key, value });
    }
  }
  return { ...fromFile, ...reader.record("env", reader.raw.env) };
}

function readInheritEnv(raw: Raw): boolean | string[] {
  const found = lookup(raw, ["inheritEnv", "inherit_env"]);
  let inheritEnv: boolean | string[] = false;
  if (found) inheritEnv = typeof found.value === "boolean" ? found.value : patterns(found.key, found.value);
  if (raw.env_vars !== undefined) {
    const names = patterns("env_vars", raw.env_vars);
    inheritEnv = inheritEnv === true ? true : [...(inheritEnv || []), ...names];
  }
  return inheritEnv;
}

function readUrl(reader: EntryReader, transport: TransportKind): string {
  if (reader.raw.url === undefined) throw new EntryProblem("url", entryProblem.noUrl(transport));
  const url = reader.text("url", reader.raw.url);
  const protocol = URL.canParse(url) ? new URL(url).protocol : undefined;
  if (protocol !== "http:" && protocol !== "https:") throw new EntryProblem("url", entryProblem.notHttpUrl());
  return url;
}

/** `headers`, Codex `http_headers` and `env_http_headers`, and a bearer token in any spelling. */
function readHeaders(reader: EntryReader): Record<string, string> {
  const raw = reader.raw;
  const headers = {
    ...reader.record("headers", raw.headers),
    ...reader.record("http_headers", raw.http_headers),
  };
  const envHeaders = raw.env_http_headers;
  if (envHeaders !== undefined) {
    if (!envHeaders || typeof envHeaders !== "object" || Array.isArray(envHeaders))
      throw new EntryProblem("env_http_headers", entryProblem.notHeaderTable());
    for (const [header, variable] of Object.entries(envHeaders))
      headers[header] = reader.variable(`env_http_headers.${header}`, variable, `header "${header}"`);
  }
  const bearer = lookup(raw, ["bearerToken", "bearer_token"]);
  if (bearer) headers.Authorization = `Bearer ${reader.text(bearer.key, bearer.value)}`;
  if (raw.bearer_token_env_var !== undefined) {
    const token = reader.variable("bearer_token_env_var", raw.bearer_token_env_var, "the bearer token");
    headers.Authorization = `Bearer ${token}`;
  }
  return headers;
}

/** `tags`: free labels, each a non-empty string; repeats dropped; undefined when none (absent in output). */
/** `origin` as `add` wrote it; anything else is refused, since the checks before each start rely on it. */
function readOrigin(value: unknown): ServerOrigin | undefined {
  if (value === undefined) return undefined;
  const result = originSchema().safeParse(value);
  if (!result.success)
    throw new EntryProblem(
      "origin",
      entryProblem.valueRejected(
        "origin",
        `is not an origin written by \`mcp-bridge add\` (${result.error.issues[0]?.path.join(".")})`,
      ),
    );
  return result.data as ServerOrigin;
}

function readTags(value: unknown): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || !value.every((item) => typeof item === "string" && item !== "")) {
    throw new EntryProblem("tags", entryProblem.notStringList("tags"));
  }
  return value.length === 0 ? undefined : [...new Set(value as string[])];
}

/** `tools: { include, exclude }` plus every host's flat spelling of the same lists, combined. */
function readToolFilter(raw: Raw): ServerDefinition["tools"] {
  const tools = raw.tools;
  if (tools !== undefined && (typeof tools !== "object" || tools === null || Array.isArray(tools))) {
    throw new EntryProblem("tools", entryProblem.notToolsTable());
  }
  const table = (tools ?? {}) as Raw;
  return {
    include: [
      ...patterns("tools.include", table.include),
      ...patterns("include", raw.include),
      ...patterns("includeTools", raw.includeTools ?? raw.include_tools),
      ...patterns("enabled_tools", raw.enabled_tools),
    ],
    exclude: [
      ...patterns("tools.exclude", table.exclude),
      ...patterns("exclude", raw.exclude),
      ...patterns("excludeTools", raw.excludeTools ?? raw.exclude_tools),
      ...patterns("disabled_tools", raw.disabled_tools),
    ],
  };
}
