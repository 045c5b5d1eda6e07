import * as z from "zod";
import { entryProblem } from "../errors/entry-problems.js";
import {
  noToolPlaceholder,
  notBoolean,
  notDescriptionPrefix,
  notDriftAction,
  notFolderPath,
  notImportList,
  notNegotiation,
  notOverflowMode,
  notPositiveInteger,
  notRegistryList,
  zeroTimeout,
} from "../errors/value-errors.js";
import { parseDuration } from "../util/duration.js";
import { DEFAULT_SETTINGS } from "./defaults.js";
import { type DriftAction, IMPORT_SOURCES, type ImportSourceName } from "./model.js";
import { TRUST_SETTINGS } from "./policy-keys.js";
import { EntryProblem } from "./problem.js";
import { CLIENT_FEATURES, durationSchema, STRUCTURED } from "./structured.js";

export { STRUCTURED } from "./structured.js";

/** A default as the docs show it, read from the defaults table so the two cannot drift apart. */
const seconds = (ms: number) => `${ms / 1000} s`;
const { startupTimeoutMs, callTimeoutMs, healthCheckIntervalMs, maxResultChars } = DEFAULT_SETTINGS;

/**
 * Every scalar config key, described once: its canonical name, the spellings other hosts write (Codex
 * snake_case, `*_sec`/`*_ms` units), how a value is read, its default and one line of documentation.
 * The accepted keys, the JSON Schema and the key lists of docs/config.md are all generated from these tables,
 * so the loader, the schema and the docs cannot drift apart. Keys with structure (transport, command,
 * headers, tools, restart, OAuth) are read by named functions in normalize-entry.ts and described in STRUCTURED.
 */

export type Raw = Record<string, unknown>;

/** How a value is read; `read` throws a message that follows the key name ("must be ..."). */
interface Reader<T> {
  readonly read: (value: unknown, key: string) => T;
  readonly schema: () => z.ZodType;
}

export const READERS = {
  boolean: {
    read: (value: unknown) => {
      if (typeof value !== "boolean") throw notBoolean();
      return value;
    },
    schema: () => z.boolean(),
  } satisfies Reader<boolean>,
  /** Milliseconds; a bare number is seconds, or milliseconds under a `*_ms` spelling. */
  duration: {
    read: (value: unknown, key: string) => parseDuration(value, key.endsWith("_ms") ? "ms" : "s"),
    schema: durationSchema,
  } satisfies Reader<number>,
  /** A duration that bounds work: 0 would fail everything at once, so it is refused, not obeyed. */
  timeout: {
    read: (value: unknown, key: string) => {
      const ms = parseDuration(value, key.endsWith("_ms") ? "ms" : "s");
      if (ms <= 0) throw zeroTimeout();
      return ms;
    },
    schema: () =>
      z
        .union([z.number().positive(), z.string().regex(/^(\d+(\.\d+)?\s*(ms|s|sec|m|min|h)?)+$/)])
        .describe('Seconds as a number, or a string such as "500ms", "30s", "2m"; more than 0'),
  } satisfies Reader<number>,
  positiveInt: {
    read: (value: unknown) => {
      if (typeof value !== "number" || !Number.isInteger(value) || value <= 0) throw notPositiveInteger();
      return value;
    },
    schema: () => z.number().int().positive(),
  } satisfies Reader<number>,
  negotiation: {
    read: (value: unknown): "legacy" | "auto" | { pin: string } => {
      if (value === "legacy" || value === "auto") return value;
      if (typeof value === "string" && /^\d{4}-\d{2}-\d{2}$/.test(value)) return { pin: value };
      throw notNegotiation();
    },
    schema: () => z.union([z.enum(["legacy", "auto"]), z.string().regex(/^\d{4}-\d{2}-\d{2}$/)]),
  } satisfies Reader<"legacy" | "auto" | { pin: string }>,
  toolNameFormat: {
    read: (value: unknown) => {
      if (typeof value === "string" && value.includes("{tool}")) return value;
      throw noToolPlaceholder();
    },
    schema: () => z.string(),
  } satisfies Reader<string>,
  descriptionPrefix: {
    read: (value: unknown) => {
      if (typeof value === "string") return value;
      if (value === false) return "";
      throw notDescriptionPrefix();
    },
    schema: () => z.union([z.string(), z.literal(false)]),
  } satisfies Reader<string>,
  overflow: {
    read: (value: unknown): "truncate" | "file" => {
      if (value === "truncate" || value === "file") return value;
      throw notOverflowMode();
    },
    schema: () => z.enum(["truncate", "file"]),
  } satisfies Reader<"truncate" | "file">,
  /** A folder; a relative one is resolved against the config file's folder by the reader of the table. */
  folder: {
    read: (value: unknown) => {
      if (typeof value === "string" && value.trim() !== "") return value;
      throw notFolderPath();
    },
    schema: () => z.string().min(1),
  } satisfies Reader<string>,
  /** What a drift from the pinned tool definitions does (see docs/security.md, "Pinned tool definitions"). */
  onDrift: {
    read: (value: unknown): DriftAction => {
      if (value === "warn" || value === "block" || value === "ask") return value;
      throw notDriftAction();
    },
    schema: () => z.enum(["warn", "block", "ask"]),
  } satisfies Reader<DriftAction>,
  /** MCP Registry addresses, asked in order (`registry`). */
  registries: {
    read: (value: unknown): string[] => {
      const list = typeof value === "string" ? [value] : value;
      if (
        Array.isArray(list) &&
        list.length > 0 &&
        list.every((item) => typeof item === "string" && /^https?:\/\/\S+$/.test(item) && URL.canParse(item))
      )
        return list as string[];
      throw notRegistryList();
    },
    schema: () => z.union([z.string(), z.array(z.string())]),
  } satisfies Reader<string[]>,
  imports: {
    read: (value: unknown): ImportSourceName[] => {
      if (Array.isArray(value) && value.every((item) => IMPORT_SOURCES.includes(item as ImportSourceName)))
        return value as ImportSourceName[];
      throw notImportList(IMPORT_SOURCES);
    },
    schema: () => z.array(z.enum(IMPORT_SOURCES)),
  } satisfies Reader<ImportSourceName[]>,
} as const;

export type ReaderKind = keyof typeof READERS;
export type ValueOf<K extends ReaderKind> = ReturnType<(typeof READERS)[K]["read"]>;

export interface FieldSpec<K extends ReaderKind = ReaderKind> {
  /** The canonical (camelCase) key, first in the lookup order. */
  readonly name: string;
  /** Other spellings, in lookup order after the canonical name (the first present wins). */
  readonly aliases: readonly string[];
  readonly kind: K;
  /** Only for stdio or only for remote servers; absent: applies to every server (or is a setting). */
  readonly scope?: "stdio" | "remote";
  /** The default, as documentation. */
  readonly default?: string;
  readonly doc: string;
}

const field = <K extends ReaderKind>(spec: FieldSpec<K>): FieldSpec<K> => spec;

/** Scalar server keys. */
export const SERVER_FIELDS = {
  enabled: field({
    name: "enabled",
    aliases: [],
    kind: "boolean",
    default: "true",
    doc: "false leaves the server off",
  }),
  disabled: field({
    name: "disabled",
    aliases: [],
    kind: "boolean",
    default: "false",
    doc: "true leaves the server off (Claude Code, Cline)",
  }),
  required: field({
    name: "required",
    aliases: [],
    kind: "boolean",
    default: "false",
    doc: "a required server that cannot start makes `start()` fail",
  }),
  lazy: field({
    name: "lazy",
    aliases: [],
    kind: "boolean",
    default: "false; under `attach` and the daemon, true for a server the catalog cache lists",
    doc: "connect on first use instead of at start; `false` also starts the server with the daemon",
  }),
  retryCrashedCalls: field({
    name: "retryCrashedCalls",
    aliases: ["retry_crashed_calls"],
    kind: "boolean",
    default: "false",
    doc: "a call cut short by the server crashing (`SERVER_CRASHED`) is sent once more after the server reconnects, within the call's timeout, for tools annotated `readOnlyHint` or `idempotentHint` only (a tool that changes things may already have done so)",
  }),
  catalogCache: field({
    name: "catalogCache",
    aliases: ["catalog_cache"],
    kind: "boolean",
    default: "the `catalogCache` setting (true)",
    doc: "false never lists this server's tools from the catalog cache nor saves them there",
  }),
  onDrift: field({
    name: "onDrift",
    aliases: ["on_drift"],
    kind: "onDrift",
    default: "the `onDrift` setting",
    doc: "what a change of this server's tool definitions since they were pinned does: `warn`, `block` the changed and new tools, or `ask` on a terminal (block elsewhere)",
  }),
  startupTimeout: field({
    name: "startupTimeout",
    aliases: ["startup_timeout", "startup_timeout_sec", "startup_timeout_ms"],
    kind: "timeout",
    default: `the \`startupTimeout\` setting (${seconds(startupTimeoutMs)})`,
    doc: "bounds the whole start: spawn, handshake, the SSE `endpoint` event and every `tools/list` page (at most 500; a cursor that repeats fails the server); `close()` ends a start at once",
  }),
  callTimeout: field({
    name: "callTimeout",
    aliases: ["call_timeout", "timeout", "tool_timeout_sec", "tool_timeout_ms"],
    kind: "timeout",
    default: `the \`callTimeout\` setting (${seconds(callTimeoutMs)})`,
    doc: "one tool call, from request to result",
  }),
  idleTimeout: field({
    name: "idleTimeout",
    aliases: ["idle_timeout"],
    kind: "duration",
    default: "never",
    doc: "close a connection unused this long; reopen it on the next call",
  }),
  maxResultChars: field({
    name: "maxResultChars",
    aliases: ["max_result_chars"],
    kind: "positiveInt",
    default: `the \`maxResultChars\` setting (${maxResultChars})`,
    doc: "result text is cut at this many characters",
  }),
  maxResultTokens: field({
    name: "maxResultTokens",
    aliases: ["max_result_tokens"],
    kind: "positiveInt",
    default: "the `maxResultTokens` setting (none)",
    doc: "result text is also cut at this many tokens (o200k tokenizer)",
  }),
  maxConcurrency: field({
    name: "maxConcurrency",
    aliases: ["max_concurrency"],
    kind: "positiveInt",
    default: "no limit",
    doc: "calls beyond this many in flight wait in a queue",
  }),
  healthCheckInterval: field({
    name: "healthCheckInterval",
    aliases: ["health_check_interval"],
    kind: "duration",
    default: `the setting (${seconds(healthCheckIntervalMs)})`,
    doc: "`ping` period; 0 turns it off. A remote server's transport error outside any request (a notification's POST that failed, the event stream giving up) is confirmed by a `ping` (bounded by 5 s) before the session is given up, so one broken socket of a live server costs nothing",
  }),
  negotiation: field({
    name: "negotiation",
    aliases: ["protocol", "protocolVersion", "protocol_version"],
    kind: "negotiation",
    default: "`legacy` for stdio, `auto` for remote",
    doc: "`legacy` (the `initialize` handshake), `auto` (probe for the 2026-07-28 protocol and fall back) or a version to pin",
  }),
  trust: field({
    name: "trust",
    aliases: [],
    kind: "boolean",
    default: "ask unless the tool declares `readOnlyHint`",
    doc: "tool approval in `mcp-bridge chat` (as in Gemini CLI): `true` runs this server's tools without asking; `false` asks before every call, even a read-only one (annotations are the server's own claim); `--yes` runs all",
  }),
  tokenRefreshMargin: field({
    name: "tokenRefreshMargin",
    aliases: ["token_refresh_margin"],
    kind: "duration",
    scope: "remote",
    default: "60 s (at most half the token's lifetime)",
    doc: "an OAuth access token is refreshed this long before it expires (by its `expires_in`), before a request presents it, so calls rarely meet an expired token; 0 refreshes only when the server refuses one",
  }),
  maxMessageBytes: field({
    name: "maxMessageBytes",
    aliases: ["max_message_bytes"],
    kind: "positiveInt",
    scope: "stdio",
    default: "no hard cap (oversized text is cut while it streams in)",
    doc: "hard cap on one stdio message; a larger one fails only its own call",
  }),
} as const;

/** Global settings (JSON `"settings"`, TOML `[mcp]`). */
export const SETTINGS_FIELDS = {
  resourceTools: field({
    name: "resourceTools",
    aliases: ["resource_tools"],
    kind: "boolean",
    default: "false",
    doc: "offer the model `list_resources` and `read_resource` tools (named by `toolNameFormat`)",
  }),
  catalogCache: field({
    name: "catalogCache",
    aliases: ["catalog_cache"],
    kind: "boolean",
    default: "true",
    doc: "list each server's tools from its last live list while it connects: `start()` resolves at once",
  }),
  onDrift: field({
    name: "onDrift",
    aliases: ["on_drift"],
    kind: "onDrift",
    default:
      "by face: `warn` in the library, `ask` in the CLI and `chat`, `block` in `serve` and the daemon (docs/security.md)",
    doc: "what a change of a server's tool definitions since they were pinned does: `warn`, `block` the changed and new tools, or `ask` on a terminal (block elsewhere)",
  }),
  enabled: field({
    name: "enabled",
    aliases: [],
    kind: "boolean",
    default: "true",
    doc: "false turns every server off",
  }),
  gatewayAdminTools: field({
    name: "gatewayAdminTools",
    aliases: ["gateway_admin_tools"],
    kind: "boolean",
    default: "false",
    doc: "`mcp-bridge serve` also serves the admin tools `mcp_bridge_admin_status`, `mcp_bridge_admin_reload` and `mcp_bridge_admin_restart` (as `--admin-tools`) to clients without a profile or whose profile has `admin: true`",
  }),
  toolNameFormat: field({
    name: "toolNameFormat",
    aliases: ["tool_name_format"],
    kind: "toolNameFormat",
    default: `\`${DEFAULT_SETTINGS.toolNameFormat}\``,
    doc: "exposed tool names; `{server}` and `{tool}` are replaced",
  }),
  descriptionPrefix: field({
    name: "descriptionPrefix",
    aliases: ["description_prefix"],
    kind: "descriptionPrefix",
    default: `\`${DEFAULT_SETTINGS.descriptionPrefix}\``,
    doc: 'put before each tool description; `""` or false turns it off',
  }),
  serveToolNameFormat: field({
    name: "serveToolNameFormat",
    aliases: ["serve_tool_name_format"],
    kind: "toolNameFormat",
    default: "`{server}_{tool}`",
    doc: "tool names `mcp-bridge serve` gives its clients (hosts prefix each MCP server's tools themselves; served descriptions carry no prefix); `--tool-names` overrides it",
  }),
  maxResultChars: field({
    name: "maxResultChars",
    aliases: ["max_result_chars"],
    kind: "positiveInt",
    default: String(maxResultChars),
    doc: "result text is cut at this many characters",
  }),
  maxResultTokens: field({
    name: "maxResultTokens",
    aliases: ["max_result_tokens"],
    kind: "positiveInt",
    default: "none",
    doc: "result text is also cut at this many tokens, counted with the o200k tokenizer",
  }),
  resultOverflow: field({
    name: "resultOverflow",
    aliases: ["result_overflow"],
    kind: "overflow",
    default: "`truncate`",
    doc: "`truncate` cuts a result over a limit with a marker; `file` also writes the whole result to a private file and gives the model the head plus the file's path",
  }),
  resultOverflowDir: field({
    name: "resultOverflowDir",
    aliases: ["result_overflow_dir"],
    kind: "folder",
    default: "`mcp-bridge-results-<uid>` in the system temp folder",
    doc: "folder for `resultOverflow: file` (relative to the config file's folder)",
  }),
  resultOverflowMaxBytes: field({
    name: "resultOverflowMaxBytes",
    aliases: ["result_overflow_max_bytes"],
    kind: "positiveInt",
    default: "104857600 (100 MB)",
    doc: "total size of the overflow files kept in the folder; the oldest are removed first",
  }),
  resultOverflowMaxAge: field({
    name: "resultOverflowMaxAge",
    aliases: ["result_overflow_max_age"],
    kind: "duration",
    default: "24 h",
    doc: "overflow files older than this are removed (a bridge also removes its own files when it closes)",
  }),
  startupTimeout: field({
    name: "startupTimeout",
    aliases: ["startup_timeout"],
    kind: "timeout",
    default: seconds(startupTimeoutMs),
    doc: "default `startupTimeout` of every server",
  }),
  callTimeout: field({
    name: "callTimeout",
    aliases: ["call_timeout", "timeout"],
    kind: "timeout",
    default: seconds(callTimeoutMs),
    doc: "default `callTimeout` of every server",
  }),
  healthCheckInterval: field({
    name: "healthCheckInterval",
    aliases: ["health_check_interval"],
    kind: "duration",
    default: seconds(healthCheckIntervalMs),
    doc: "default `ping` period of every server (one that stops answering is restarted)",
  }),
  autoReload: field({
    name: "autoReload",
    aliases: ["auto_reload"],
    kind: "boolean",
    default: "false",
    doc: "watch the file and `reload()` on change",
  }),
  registry: field({
    name: "registry",
    aliases: ["registries"],
    kind: "registries",
    default: "the official MCP Registry",
    doc: "the MCP Registry (an address, or a list asked in order) that `search`, `add NAME` and `update` use (docs/registry.md)",
  }),
  advisories: field({
    name: "advisories",
    aliases: [],
    kind: "folder",
    default: "none",
    doc: "an OSV advisory file or folder (relative to the config file's folder): a package with a malware advisory is refused at add and before every start",
  }),
  imports: field({
    name: "imports",
    aliases: [],
    kind: "imports",
    default: "none",
    doc: `other hosts' servers to add: ${IMPORT_SOURCES.map((s) => `\`${s}\``).join(", ")}`,
  }),
} as const;

/** Keys other hosts write that mean nothing to a bridge; dropped without a warning. */
export const IGNORED_SERVER_KEYS: readonly string[] = [
  "name",
  "autoApprove",
  "alwaysAllow",
  "description",
  "disabledTools",
  "$schema",
  "dev",
];

const keysOf = (fields: Record<string, FieldSpec>) =>
  Object.values(fields).flatMap((spec) => [spec.name, ...spec.aliases]);

/** Every key a server entry may hold: these are read, all others are warned about. */
export const SERVER_KEYS: ReadonlySet<string> = new Set([
  ...keysOf(SERVER_FIELDS),
  ...Object.values(STRUCTURED).flatMap((entry): readonly string[] => entry.keys),
]);

/** Settings with structure: the global roots and sampling policy. */
export const SETTINGS_STRUCTURED = {
  roots: CLIENT_FEATURES.roots,
  sampling: CLIENT_FEATURES.sampling,
  ...TRUST_SETTINGS,
};

export const SETTINGS_KEYS: ReadonlySet<string> = new Set([
  ...keysOf(SETTINGS_FIELDS),
  ...Object.values(SETTINGS_STRUCTURED).flatMap((entry) => entry.keys),
]);

/** The one alias lookup: the first spelling present in `raw`. */
export function lookup(raw: Raw, keys: readonly string[]): { key: string; value: unknown } | undefined {
  for (const key of keys) if (raw[key] !== undefined) return { key, value: raw[key] };
  return undefined;
}

/** Reads one field; `undefined` when absent; a bad value throws an EntryProblem naming the key used. */
export function readField<K extends ReaderKind>(raw: Raw, spec: FieldSpec<K>): ValueOf<K> | undefined {
  const found = lookup(raw, [spec.name, ...spec.aliases]);
  if (!found) return undefined;
  try {
    return READERS[spec.kind].read(found.value, found.key) as ValueOf<K>;
  } catch (error) {
    throw new EntryProblem(found.key, entryProblem.valueRejected(found.key, (error as Error).message));
  }
}
