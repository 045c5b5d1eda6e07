/**
 * Tools: a name that names no tool, arguments that do not fit, a call that failed, timed out, was
 * aborted or cut short. Each factory returns the complete error; the wording lives here only. Text
 * from a server is already redacted by the caller.
 */
import {
  AbortError,
  ErrorCode,
  InvalidArgumentsError,
  McpBridgeError,
  ServerCrashedError,
  ToolExecutionError,
  ToolNotFoundError,
  ToolTimeoutError,
} from "./error-classes.js";

/** Longest piece of a model-sent name quoted back: a hostile name must not flood a transcript. */
const NAME_QUOTE = 200;

/** What a server could not do at the moment a call needed it. */
export interface PendingServer {
  readonly name: string;
  /** `connecting` (still coming up) or `failed`, with the redacted reason. */
  readonly state: "connecting" | "failed";
  readonly reason?: string;
}

export function toolNotFound(fields: { server: string; tool: string }): ToolNotFoundError {
  const { server, tool } = fields;
  return new ToolNotFoundError(
    `Server "${server}" has no tool "${tool}". Run \`mcp-bridge tools --server ${server}\` to list its tools.`,
    { server, tool },
  );
}

/** An exposed name no registered tool has; `pending` are the servers that may still bring it. */
export function unknownTool(fields: {
  name: string;
  registered: number;
  pending: readonly PendingServer[];
}): ToolNotFoundError {
  const { name, registered, pending } = fields;
  const servers = pending.map(({ name: server, state, reason }) =>
    state === "connecting"
      ? `server "${server}" is still connecting`
      : `server "${server}" failed${reason ? `: ${reason.slice(0, 300)}` : ""}`,
  );
  return new ToolNotFoundError(
    `Unknown tool "${name}" (${registered} tools registered${servers.length ? `; ${servers.join("; ")}` : ""}). Use an exposed name from \`mcp-bridge tools\` or "server/tool".`,
    { tool: name },
  );
}

/** A model called a tool its host did not offer it (a server switched off, a filtered tool). */
export function toolNotOffered(fields: { name: string; server: string; tool: string }): ToolNotFoundError {
  const { name, server, tool } = fields;
  return new ToolNotFoundError(
    `Tool "${name.slice(0, NAME_QUOTE)}" is not offered in this conversation (server "${server}" is switched off or the tool is filtered out); it was not run.`,
    { server, tool },
  );
}

/** An approved tool's exposed name came to name another tool before the call was sent. */
export function toolRenamed(fields: { name: string; server: string; tool: string }): ToolNotFoundError {
  const { name, server, tool } = fields;
  return new ToolNotFoundError(
    `Tool "${name}" (server "${server}", tool "${tool}") was renamed while its approval was asked (the servers' tools changed); it was not run. Call it again by its current name.`,
    { server, tool },
  );
}

/** A name the model sent to the tool-search meta-tools' call tool that names no tool. */
export function searchUnknownTool(fields: { name: string; searchTool: string }): ToolNotFoundError {
  const name = fields.name.slice(0, NAME_QUOTE);
  return new ToolNotFoundError(
    `No tool is named "${name}". Call ${fields.searchTool} to find the right tool and use the name it returns.`,
    { tool: name },
  );
}

export function invalidSearchPattern(fields: { pattern: string; reason: string }): InvalidArgumentsError {
  const { pattern, reason } = fields;
  return new InvalidArgumentsError(
    `Invalid regular expression /${pattern.slice(0, 100)}/: ${reason}. Use RE2 syntax (no backreferences or lookaround), or plain words.`,
    { issues: [{ path: "query", message: reason }] },
  );
}

/** `call NAME` with a bare tool name (`name`) that several servers have; `tool` is the name as given. */
export function ambiguousToolName(fields: {
  name: string;
  candidates: readonly string[];
  tool?: string | undefined;
}): ToolNotFoundError {
  const { name, candidates, tool } = fields;
  return new ToolNotFoundError(
    `Tool "${name}" is on several servers: ${candidates.join(", ")}. Name one as server/tool (or server.tool).`,
    { tool: tool ?? name },
  );
}

/** `tools NAME` (describe) for a name no connected server has; `near` is the closest name. */
export function noConnectedTool(fields: { name: string; near?: string | undefined }): ToolNotFoundError {
  const { name, near } = fields;
  return new ToolNotFoundError(
    `No tool named "${name}" among the connected servers' tools.${near ? ` Did you mean "${near}"?` : ""} Run \`mcp-bridge tools\` for the list.`,
    { tool: name },
  );
}

export function missingToolName(): ToolNotFoundError {
  return new ToolNotFoundError("The tool call has no tool name.");
}

/** Arguments that are not one JSON object (unparsable text, an array, ...). */
export function unreadableArguments(fields: { tool: string; problem: string }): InvalidArgumentsError {
  const { tool, problem } = fields;
  return new InvalidArgumentsError(
    `Cannot call tool "${tool}": ${problem}. Send the arguments as one JSON object.`,
    {
      tool,
      issues: [{ path: "", message: problem }],
    },
  );
}

/** Arguments that fail the tool's input schema; `name` is the exposed name, `tool` the server's. */
export function invalidArguments(fields: {
  server: string;
  tool: string;
  name: string;
  issues: { path: string; message: string }[];
}): InvalidArgumentsError {
  const { server, tool, name, issues } = fields;
  return new InvalidArgumentsError(
    `Invalid arguments for tool "${name}" (server "${server}"): ${issues
      .map((issue) => `${issue.path || "(root)"}: ${issue.message}`)
      .join("; ")}`,
    { server, tool, issues },
  );
}

/** The tool ran and answered `isError: true`; `text` is its redacted text, `result` the converted result. */
export function toolReportedError(fields: {
  server: string;
  tool: string;
  text: string;
  result?: unknown;
}): ToolExecutionError {
  const { server, tool, text, result } = fields;
  return new ToolExecutionError(
    `Tool "${tool}" on server "${server}" reported an error: ${text.slice(0, 1000)}`,
    { server, tool, result },
  );
}

/** The server answered the call with a JSON-RPC error. */
export function toolRejected(fields: {
  server: string;
  tool: string;
  detail: string;
  rpcCode: number;
  cause?: unknown;
}): ToolExecutionError {
  const { server, tool, detail, rpcCode, cause } = fields;
  return new ToolExecutionError(
    `Server "${server}" rejected the call to tool "${tool}": ${detail} (JSON-RPC ${rpcCode})`,
    { server, tool, rpcCode, cause },
  );
}

export function toolFailed(fields: {
  server: string;
  tool: string;
  detail: string;
  cause?: unknown;
}): ToolExecutionError {
  const { server, tool, detail, cause } = fields;
  return new ToolExecutionError(`Call to tool "${tool}" on server "${server}" failed: ${detail}`, {
    server,
    tool,
    cause,
  });
}

/** A result beyond the transport's size cap; `detail` is the transport's own sentence. */
export function resultTooLarge(fields: {
  server: string;
  tool: string;
  detail: string;
  cause?: unknown;
}): McpBridgeError {
  const { server, tool, detail, cause } = fields;
  return new McpBridgeError(ErrorCode.ResultTooLarge, `Tool "${tool}" on server "${server}": ${detail}`, {
    server,
    tool,
    cause,
  });
}

/** `detail` says where the time went ("while queued", a task id, ...). */
export function toolTimeout(fields: {
  server: string;
  tool: string;
  timeoutMs: number;
  detail?: string | undefined;
  cause?: unknown;
}): ToolTimeoutError {
  const { server, tool, timeoutMs, detail, cause } = fields;
  return new ToolTimeoutError(
    `Tool "${tool}" on server "${server}" did not finish within ${timeoutMs} ms${detail ? ` ${detail}` : ""}; the request was cancelled. Raise the call timeout if the tool is just slow.`,
    { server, tool, timeoutMs, cause },
  );
}

/** The caller's signal aborted a call (or, without `tool`, a connect). */
export function aborted(fields: { server: string; tool?: string | undefined; cause?: unknown }): AbortError {
  const { server, tool, cause } = fields;
  return new AbortError(
    tool === undefined
      ? `Connecting to server "${server}" was aborted by the caller.`
      : `Call to tool "${tool}" on server "${server}" was aborted by the caller; the request was cancelled on the server.`,
    { server, tool, cause },
  );
}

/** A remote server's connection broke while a call was running. */
export function unreachableDuringCall(fields: {
  server: string;
  tool: string;
  at: string;
  detail: string;
  cause?: unknown;
}): ServerCrashedError {
  const { server, tool, at, detail, cause } = fields;
  return new ServerCrashedError(
    `Server "${server}"${at} became unreachable while tool "${tool}" was running (${detail}). mcp-bridge reconnects automatically; retry the call.`,
    { server, tool, cause },
  );
}

/** A stdio server stopped while a call was running; `exit` says how, when known. */
export function stoppedDuringCall(fields: {
  server: string;
  tool: string;
  exit?: string | undefined;
  cause?: unknown;
}): ServerCrashedError {
  const { server, tool, exit, cause } = fields;
  return new ServerCrashedError(
    `Server "${server}" stopped while tool "${tool}" was running${exit ? `: ${exit}` : "."} mcp-bridge restarts it automatically; retry the call.`,
    { server, tool, cause },
  );
}

/** A command-line `key=value` argument without a separator. */
export function malformedKeyValue(fields: { pair: string }): McpBridgeError {
  return new McpBridgeError(ErrorCode.Usage, `Expected key=value or key:value, got "${fields.pair}"`);
}

/** A command-line argument value of the wrong type; `expected` is in words ("a number or null"). */
export function argumentType(fields: { key: string; raw: string; expected: string }): McpBridgeError {
  const { key, raw, expected } = fields;
  return new McpBridgeError(ErrorCode.Usage, `${key}: \`${raw}\` is not ${expected}`);
}

/** A command-line argument the tool's schema does not have; `near` is the closest parameter name. */
export function unknownParameter(fields: {
  key: string;
  tool: string;
  parameters: readonly string[];
  near?: string | undefined;
}): McpBridgeError {
  const { key, tool, parameters, near } = fields;
  return new McpBridgeError(
    ErrorCode.Usage,
    `\`${key}\` is not a parameter of ${tool}.${near ? ` Did you mean \`${near}\`?` : ""} ${
      parameters.length > 0 ? `Its parameters: ${parameters.join(", ")}.` : "It takes no parameters."
    }`,
  );
}

/** Command-line arguments without a parameter the tool's schema requires. */
export function missingParameters(fields: {
  missing: readonly string[];
  tool: string;
  parameters: readonly string[];
}): McpBridgeError {
  const { missing, tool, parameters } = fields;
  const names = missing.map((name) => `\`${name}\``).join(", ");
  const example = missing.map((name) => `${name}=...`).join(" ");
  return new McpBridgeError(
    ErrorCode.Usage,
    `${tool} requires ${names}, which ${missing.length === 1 ? "was" : "were"} not given: add ${example}. Its parameters: ${parameters.join(", ")}.`,
  );
}

/**
 * A 2026-07-28 result without the fields that protocol requires (see connection/era-fallback.ts): the
 * call may have run, so it is not sent again by itself.
 */
export function incompleteModernResult(fields: {
  server: string;
  tool: string;
  cause?: unknown;
}): ToolExecutionError {
  return new ToolExecutionError(
    `Server "${fields.server}" answered tool "${fields.tool}" in the 2026-07-28 protocol without the fields that protocol requires; ` +
      `mcp-bridge reconnects it with the 2025-11-25 handshake. The call may have run: call it again if its effect is missing, ` +
      `or set "negotiation": "legacy" for this server.`,
    fields,
  );
}

/** A tool's JSON Schema in a dialect no validator here reads. */
export const unsupportedSchemaDialect = ({ dialect }: { dialect: unknown }) =>
  new Error(`unsupported JSON Schema dialect ${String(dialect)}`);
