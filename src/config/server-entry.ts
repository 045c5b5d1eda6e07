import type { EditFormat } from "./edit.js";

/**
 * One server's entry as `mcp-bridge add` writes it, in the dialect of the file it goes into, so the
 * host that owns the file reads it too: Codex's `[mcp_servers.NAME]` tables take no `type` and spell
 * headers `http_headers` (literal values), `env_http_headers` (header = ENV_VAR) and
 * `bearer_token_env_var`, since Codex expands no `${VAR}`; VS Code's `servers` object wants a `type`
 * on every entry; `mcpServers` files (mcp-bridge, Claude Code, Cursor) take `type` for remote servers.
 * Pure.
 */

export type ServerSpec =
  | {
      readonly transport: "stdio";
      readonly command: string;
      readonly args: readonly string[];
      readonly env: Readonly<Record<string, string>>;
      readonly cwd: string | undefined;
    }
  | {
      readonly transport: "http" | "sse";
      readonly url: string;
      readonly headers: Readonly<Record<string, string>>;
    };

export type Dialect = "codex" | "vscode" | "mcpServers";

/** The dialect of a config file's text (Codex's for TOML in `[mcp_servers.*]` form or empty). */
export function dialectOf(text: string, format: EditFormat): Dialect {
  if (format === "toml") return /^\s*\[\[?\s*mcp\.servers/m.test(text) ? "mcpServers" : "codex";
  // VS Code's files keep servers under "servers"; every other host's under "mcpServers".
  return /"servers"\s*:/.test(text) && !/"mcpServers"\s*:/.test(text) ? "vscode" : "mcpServers";
}

/** A header value that is one variable: `${VAR}`. */
const WHOLE_VARIABLE = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$/;
const BEARER_VARIABLE = /^Bearer \$\{([A-Za-z_][A-Za-z0-9_]*)\}$/;

/**
 * Codex's spelling of the headers; a value mixing text and `${VAR}` otherwise than `Bearer ${VAR}` in
 * Authorization has none, and is returned as `unwritable`.
 */
function codexHeaders(headers: Readonly<Record<string, string>>): {
  entry: Record<string, unknown>;
  unwritable?: string;
} {
  const literal: Record<string, string> = {};
  const fromEnv: Record<string, string> = {};
  let bearer: string | undefined;
  for (const [name, value] of Object.entries(headers)) {
    const whole = WHOLE_VARIABLE.exec(value);
    const token = name.toLowerCase() === "authorization" ? BEARER_VARIABLE.exec(value) : null;
    if (token) bearer = token[1];
    else if (whole) fromEnv[name] = whole[1] as string;
    else if (value.includes("${")) return { entry: {}, unwritable: name };
    else literal[name] = value;
  }
  const entry: Record<string, unknown> = {};
  if (Object.keys(literal).length > 0) entry.http_headers = literal;
  if (Object.keys(fromEnv).length > 0) entry.env_http_headers = fromEnv;
  if (bearer !== undefined) entry.bearer_token_env_var = bearer;
  return { entry };
}

/**
 * The entry to write, or the name of a header the dialect cannot express (Codex: a value that mixes
 * text with `${VAR}`).
 */
export function serverEntry(
  spec: ServerSpec,
  dialect: Dialect,
): { entry: Record<string, unknown>; unwritableHeader?: string } {
  if (spec.transport === "stdio") {
    const entry: Record<string, unknown> = {};
    if (dialect === "vscode") entry.type = "stdio";
    entry.command = spec.command;
    entry.args = [...spec.args];
    if (Object.keys(spec.env).length > 0) entry.env = { ...spec.env };
    if (spec.cwd !== undefined) entry.cwd = spec.cwd;
    return { entry };
  }
  if (dialect === "codex") {
    const headers = codexHeaders(spec.headers);
    if (headers.unwritable !== undefined) return { entry: {}, unwritableHeader: headers.unwritable };
    // Codex speaks Streamable HTTP only and has no `type`; an SSE server needs mcp-bridge's `type`.
    const entry: Record<string, unknown> = {};
    if (spec.transport === "sse") entry.type = "sse";
    entry.url = spec.url;
    return { entry: Object.assign(entry, headers.entry) };
  }
  const entry: Record<string, unknown> = { type: spec.transport, url: spec.url };
  if (Object.keys(spec.headers).length > 0) entry.headers = { ...spec.headers };
  return { entry };
}
