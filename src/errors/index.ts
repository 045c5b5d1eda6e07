/**
 * Every error mcp-bridge throws is a McpBridgeError with a stable string `code`.
 * Classify where the error is raised; callers branch on `code`, never on message text.
 */
export const ErrorCode = {
  ConfigNotFound: "CONFIG_NOT_FOUND",
  ConfigParse: "CONFIG_PARSE",
  ConfigInvalid: "CONFIG_INVALID",
  ServerStartFailed: "SERVER_START_FAILED",
  ServerStartTimeout: "SERVER_START_TIMEOUT",
  ServerCrashed: "SERVER_CRASHED",
  ServerUnavailable: "SERVER_UNAVAILABLE",
  ServerRequired: "SERVER_REQUIRED",
  ServerNotFound: "SERVER_NOT_FOUND",
  ToolNotFound: "TOOL_NOT_FOUND",
  ToolTimeout: "TOOL_TIMEOUT",
  Aborted: "ABORTED",
  ToolExecution: "TOOL_EXECUTION",
  InvalidArguments: "INVALID_ARGUMENTS",
  ResultTooLarge: "RESULT_TOO_LARGE",
  BridgeClosed: "BRIDGE_CLOSED",
  Auth: "AUTH",
  Usage: "USAGE",
  /** The model endpoint of the agent failed: unreachable, an HTTP error, a malformed stream. */
  ModelRequest: "MODEL_REQUEST",
  /** A project-level config defines servers the user has not approved (and no terminal to ask). */
  ProjectNotTrusted: "PROJECT_NOT_TRUSTED",
  /** No connected server serves the resource URI (or the named server does not). */
  ResourceNotFound: "RESOURCE_NOT_FOUND",
  /** Two or more servers serve the same resource URI and no `server` was given. */
  ResourceAmbiguous: "RESOURCE_AMBIGUOUS",
  PromptNotFound: "PROMPT_NOT_FOUND",
  /** A server request other than a tool call (resources/read, prompts/get, completion/complete, ...) failed. */
  RequestFailed: "REQUEST_FAILED",
  /** A request other than a tool call did not finish within its timeout. */
  RequestTimeout: "REQUEST_TIMEOUT",
  /** A server asked for sampling (an LLM completion) and was refused or the handler failed. */
  SamplingFailed: "SAMPLING_FAILED",
  /** The CLI's daemon went away in the middle of a request (crashed, killed, stopped). */
  DaemonUnavailable: "DAEMON_UNAVAILABLE",
  /** No server lists a skill of that name (or the named server does not), or two servers do and no `server` was given. */
  SkillNotFound: "SKILL_NOT_FOUND",
  /** A skill file did not match the server's own listing of it (size, sha256 digest, SKILL.md frontmatter): it is not loaded. */
  SkillVerification: "SKILL_VERIFICATION",
  /** Another process held the advisory lock on a file (config, store) longer than the wait allowed. */
  LockTimeout: "LOCK_TIMEOUT",
  /** A folder or file mcp-bridge would write is unsafe: a symbolic link, owned by another user, or writable by others. */
  UnsafePath: "UNSAFE_PATH",
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

export interface McpBridgeErrorFields {
  server?: string;
  tool?: string;
  cause?: unknown;
}

export class McpBridgeError extends Error {
  readonly code: ErrorCode;
  readonly server?: string;
  readonly tool?: string;

  constructor(code: ErrorCode, message: string, fields: McpBridgeErrorFields = {}) {
    super(message, fields.cause === undefined ? undefined : { cause: fields.cause });
    this.name = new.target.name;
    this.code = code;
    if (fields.server !== undefined) this.server = fields.server;
    if (fields.tool !== undefined) this.tool = fields.tool;
  }

  /** A plain, secret-free shape for JSON output (`--json`, tool error results). */
  toJSON(): { code: ErrorCode; message: string; server?: string; tool?: string } {
    return {
      code: this.code,
      message: this.message,
      ...(this.server === undefined ? {} : { server: this.server }),
      ...(this.tool === undefined ? {} : { tool: this.tool }),
    };
  }
}

export class ConfigError extends McpBridgeError {
  readonly file?: string;
  readonly line?: number;
  readonly column?: number;

  constructor(
    code: typeof ErrorCode.ConfigNotFound | typeof ErrorCode.ConfigParse | typeof ErrorCode.ConfigInvalid,
    message: string,
    fields: McpBridgeErrorFields & { file?: string; line?: number; column?: number } = {},
  ) {
    super(code, message, fields);
    if (fields.file !== undefined) this.file = fields.file;
    if (fields.line !== undefined) this.line = fields.line;
    if (fields.column !== undefined) this.column = fields.column;
  }
}

/** A server could not be connected (start failure, start timeout, required server down). */
export class ServerConnectionError extends McpBridgeError {
  /** Last lines the server wrote to stderr (stdio only), already redacted. */
  readonly stderrTail?: string[];

  constructor(
    code:
      | typeof ErrorCode.ServerStartFailed
      | typeof ErrorCode.ServerStartTimeout
      | typeof ErrorCode.ServerUnavailable
      | typeof ErrorCode.ServerRequired
      | typeof ErrorCode.ServerNotFound,
    message: string,
    fields: McpBridgeErrorFields & { stderrTail?: string[] } = {},
  ) {
    super(code, message, fields);
    if (fields.stderrTail !== undefined) this.stderrTail = fields.stderrTail;
  }
}

/** The server process or connection died while a request was in flight. */
export class ServerCrashedError extends McpBridgeError {
  constructor(message: string, fields: McpBridgeErrorFields = {}) {
    super(ErrorCode.ServerCrashed, message, fields);
  }
}

export class ToolNotFoundError extends McpBridgeError {
  constructor(message: string, fields: McpBridgeErrorFields = {}) {
    super(ErrorCode.ToolNotFound, message, fields);
  }
}

export class ToolTimeoutError extends McpBridgeError {
  readonly timeoutMs: number;
  constructor(message: string, fields: McpBridgeErrorFields & { timeoutMs: number }) {
    super(ErrorCode.ToolTimeout, message, fields);
    this.timeoutMs = fields.timeoutMs;
  }
}

/** The caller aborted the call through its AbortSignal. */
export class AbortError extends McpBridgeError {
  constructor(message: string, fields: McpBridgeErrorFields = {}) {
    super(ErrorCode.Aborted, message, fields);
  }
}

/** The tool ran and reported an error (`isError: true`) or the server answered with a JSON-RPC error. */
export class ToolExecutionError extends McpBridgeError {
  /** JSON-RPC error code when the server answered with a protocol error. */
  readonly rpcCode?: number;
  /** The converted tool result when the tool itself reported `isError: true`. */
  readonly result?: unknown;
  constructor(message: string, fields: McpBridgeErrorFields & { rpcCode?: number; result?: unknown } = {}) {
    super(ErrorCode.ToolExecution, message, fields);
    if (fields.rpcCode !== undefined) this.rpcCode = fields.rpcCode;
    if (fields.result !== undefined) this.result = fields.result;
  }
}

export class InvalidArgumentsError extends McpBridgeError {
  readonly issues: { path: string; message: string }[];
  constructor(
    message: string,
    fields: McpBridgeErrorFields & { issues: { path: string; message: string }[] },
  ) {
    super(ErrorCode.InvalidArguments, message, fields);
    this.issues = fields.issues;
  }
}

/**
 * A request about one item of a server (a resource URI, a prompt name, a completion reference) failed:
 * the error names the server, the MCP method and the item.
 */
export class ServerRequestError extends McpBridgeError {
  readonly method: string;
  readonly item?: string;
  /** JSON-RPC error code when the server answered with a protocol error. */
  readonly rpcCode?: number;
  constructor(
    code: ErrorCode,
    message: string,
    fields: McpBridgeErrorFields & { method: string; item?: string; rpcCode?: number },
  ) {
    super(code, message, fields);
    this.method = fields.method;
    if (fields.item !== undefined) this.item = fields.item;
    if (fields.rpcCode !== undefined) this.rpcCode = fields.rpcCode;
  }

  override toJSON(): ReturnType<McpBridgeError["toJSON"]> & { method: string; item?: string } {
    return {
      ...super.toJSON(),
      method: this.method,
      ...(this.item === undefined ? {} : { item: this.item }),
    };
  }
}

/**
 * A skill file failed verification against the entry its server listed (SEP-2640 skills): wrong byte
 * size, wrong sha256 digest, frontmatter that differs, or a file the entry does not list. Nothing of
 * the skill is loaded and no further file is read.
 */
export class SkillVerificationError extends McpBridgeError {
  /** The skill's name (its frontmatter `name`). */
  readonly skill: string;
  /** The file that failed. */
  readonly uri: string;
  readonly reason: "size" | "digest" | "frontmatter" | "unlisted";
  /** For `frontmatter`: one line per differing field. */
  readonly differences: readonly string[];
  constructor(
    message: string,
    fields: McpBridgeErrorFields & {
      server: string;
      skill: string;
      uri: string;
      reason: SkillVerificationError["reason"];
      differences?: readonly string[];
    },
  ) {
    super(ErrorCode.SkillVerification, message, fields);
    this.skill = fields.skill;
    this.uri = fields.uri;
    this.reason = fields.reason;
    this.differences = fields.differences ?? [];
  }

  override toJSON(): ReturnType<McpBridgeError["toJSON"]> & { skill: string; uri: string; reason: string } {
    return { ...super.toJSON(), skill: this.skill, uri: this.uri, reason: this.reason };
  }
}

export function isMcpBridgeError(value: unknown): value is McpBridgeError {
  return value instanceof McpBridgeError;
}

/** What a server could not do at the moment a call needed it. */
export interface PendingServer {
  readonly name: string;
  /** `connecting` (still coming up) or `failed`, with the redacted reason. */
  readonly state: "connecting" | "failed";
  readonly reason?: string;
}

/**
 * Every message mcp-bridge composes, one builder per situation: what failed, for which server and
 * tool, and what to do. Throw sites pick a builder and the class; they never write wording, so the
 * same failure reads the same wherever it is raised. Builders take already-redacted text.
 */
export const errorMessages = {
  serverNotFound: (server: string, configured: readonly string[]) =>
    `No server named "${server}" in the config (servers: ${configured.length ? configured.join(", ") : "none"}). Check \`mcp-bridge status\`.`,
  /** `restart(server)` for a name the config does not have. */
  restartUnknown: (server: string, configured: readonly string[], hint: string) =>
    `Cannot restart "${server}": no such server in the config (servers: ${configured.length ? configured.join(", ") : "none"})${hint || "."}`,
  restartDisabled: (server: string) =>
    `Cannot restart "${server}": it is disabled in the config; set enabled = true (or remove disabled) and reload.`,
  restartNotSelected: (server: string) =>
    `Cannot restart "${server}": this bridge was started with \`only\` and does not run it.`,
  /** A call that was running when `restart(server)` closed its connection. */
  restartedDuringCall: (server: string, tool: string) =>
    `Server "${server}" was restarted while tool "${tool}" was running; the call was cut short and may or may not have taken effect. Retry it once the server is connected.`,
  /** A tool whose server is not connected (idle, failed, reconnecting, ...). */
  serverUnavailable: (server: string, state: string, reason?: string, tool?: string) =>
    tool === undefined
      ? `Server "${server}" is not connected (state: ${state}).${reason ? ` Last error: ${reason}` : ""}`
      : `Tool "${tool}" cannot be called: server "${server}" is ${state}${reason ? ` (${reason})` : ""}.`,
  /** The server that would own a `server/tool` name is down. */
  ownerUnavailable: (server: string, name: string, reason?: string) =>
    `Server "${server}", which would own "${name}", is not connected: ${reason ?? "it failed to start"}`,
  requiredServers: (down: readonly { name: string; reason: string }[]) =>
    `Required server${down.length > 1 ? "s" : ""} could not start: ${down
      .map(({ name, reason }) => `"${name}": ${reason}`)
      .join("; ")}. Fix the server or set required = false.`,
  toolNotFound: (server: string, tool: string) =>
    `Server "${server}" has no tool "${tool}". Run \`mcp-bridge tools --server ${server}\` to list its tools.`,
  unknownTool: (name: string, registered: number, pending: readonly PendingServer[]) => {
    const servers = pending.map(({ name: server, state, reason }) =>
      state === "connecting"
        ? `server "${server}" is still connecting`
        : `server "${server}" failed${reason ? `: ${reason.slice(0, 300)}` : ""}`,
    );
    return `Unknown tool "${name}" (${registered} tools registered${servers.length ? `; ${servers.join("; ")}` : ""}). Use an exposed name from \`mcp-bridge tools\` or "server/tool".`;
  },
  authSetup: (server: string, reason: string) =>
    `Server "${server}": authentication could not be set up: ${reason}. Fix its oauth settings in the config.`,
  /** A model called a tool its host did not offer it (a server switched off, a filtered tool). */
  toolNotOffered: (name: string, server: string) =>
    `Tool "${name}" is not offered in this conversation (server "${server}" is switched off or the tool is filtered out); it was not run.`,
  /** An approved tool's exposed name came to name another tool before the call was sent. */
  toolRenamed: (name: string, server: string, tool: string) =>
    `Tool "${name}" (server "${server}", tool "${tool}") was renamed while its approval was asked (the servers' tools changed); it was not run. Call it again by its current name.`,
  /** A name the model sent to the catalog's call tool that names no tool. */
  catalogUnknownTool: (name: string, searchTool: string) =>
    `No tool is named "${name.slice(0, 200)}". Call ${searchTool} to find the right tool and use the name it returns.`,
  invalidSearchPattern: (pattern: string, reason: string) =>
    `Invalid regular expression /${pattern.slice(0, 100)}/: ${reason}. Use RE2 syntax (no backreferences or lookaround), or plain words.`,
  samplingNoModel: (server: string) =>
    `Sampling for server "${server}": no model configured; set OPENAI_MODEL or pass { model }.`,
  samplingUnreachable: (server: string, baseUrl: string, detail: string) =>
    `Sampling for server "${server}": the model endpoint ${baseUrl} could not be reached (${detail}).`,
  samplingHttp: (server: string, status: number, body: string) =>
    `Sampling for server "${server}": the model endpoint answered HTTP ${status}: ${body.slice(0, 300)}`,
  samplingNotJson: (server: string) =>
    `Sampling for server "${server}": the model endpoint did not answer JSON.`,
  samplingTooLarge: (maxBytes: number) => `The model endpoint sent more than ${maxBytes} bytes.`,
  samplingNoMessage: (server: string) =>
    `Sampling for server "${server}": the model endpoint's answer has no message.`,
  skillNotFound: (name: string, server: string | undefined, listed: readonly string[]) =>
    `No skill named "${name}"${server === undefined ? " on the connected servers" : ` on server "${server}"`}${
      listed.length > 0 ? ` (listed: ${listed.slice(0, 20).join(", ")})` : " (none lists any skills)"
    }. Call skills() for the list.`,
  skillAmbiguous: (name: string, servers: readonly string[]) =>
    `Skill "${name}" is listed by servers ${servers.map((s) => `"${s}"`).join(", ")}; pass { server } to choose one.`,
  skillVerification: (server: string, skill: string, detail: string) =>
    `Skill "${skill}" of server "${server}" was not loaded: ${detail.slice(0, 500)}. The server's file does not match its own listing; do not use it, and tell the server's maintainer.`,
  /** `call NAME` with a bare tool name that several servers have. */
  ambiguousToolName: (name: string, candidates: readonly string[]) =>
    `Tool "${name}" is on several servers: ${candidates.join(", ")}. Name one as server/tool (or server.tool).`,
  /** `tools NAME` (describe) for a name no connected server has. */
  noConnectedTool: (name: string, near?: string) =>
    `No tool named "${name}" among the connected servers' tools.${near ? ` Did you mean "${near}"?` : ""} Run \`mcp-bridge tools\` for the list.`,
  missingToolName: () => "The tool call has no tool name.",
  unreadableArguments: (tool: string, problem: string) =>
    `Cannot call tool "${tool}": ${problem}. Send the arguments as one JSON object.`,
  invalidArguments: (server: string, tool: string, issues: readonly { path: string; message: string }[]) =>
    `Invalid arguments for tool "${tool}" (server "${server}"): ${issues
      .map((issue) => `${issue.path || "(root)"}: ${issue.message}`)
      .join("; ")}`,
  toolReportedError: (server: string, tool: string, text: string) =>
    `Tool "${tool}" on server "${server}" reported an error: ${text.slice(0, 1000)}`,
  toolRejected: (server: string, tool: string, detail: string, rpcCode: number) =>
    `Server "${server}" rejected the call to tool "${tool}": ${detail} (JSON-RPC ${rpcCode})`,
  toolFailed: (server: string, tool: string, detail: string) =>
    `Call to tool "${tool}" on server "${server}" failed: ${detail}`,
  toolTimeout: (server: string, tool: string, timeoutMs: number, detail = "") =>
    `Tool "${tool}" on server "${server}" did not finish within ${timeoutMs} ms${detail ? ` ${detail}` : ""}; the request was cancelled. Raise the call timeout if the tool is just slow.`,
  aborted: (server: string, tool?: string) =>
    tool === undefined
      ? `Connecting to server "${server}" was aborted by the caller.`
      : `Call to tool "${tool}" on server "${server}" was aborted by the caller; the request was cancelled on the server.`,
  modelRequestCancelled: () => "The model request was cancelled.",
  turnCancelled: () => "The turn was cancelled.",
  bridgeClosed: () => "The bridge is closed; start a new one.",
  lockTimeout: (path: string, timeoutMs: number, holder: string) =>
    `Could not lock ${path} within ${timeoutMs} ms: ${holder} holds it. Retry when it is done; if no mcp-bridge is running, delete ${path}.lock.`,
  unsafePath: (path: string, what: string, problem: string) =>
    `Refusing to use ${path} for the ${what}: ${problem}. Point mcp-bridge at a folder you own that others cannot write, or fix the path's owner and permissions.`,
  serverClosed: (server: string) => `Server "${server}" is closed.`,
  serverDisabled: (server: string, tool?: string) =>
    `Server "${server}" is disabled in the config; enable it to use${tool ? ` tool "${tool}"` : " it"}.`,
  /** Requests other than tool calls (resources, prompts, completions), named by `what`. */
  requestNoSession: (server: string, what: string) => `Server "${server}" has no live session for ${what}.`,
  requestAborted: (server: string, what: string) =>
    `${capitalize(what)} on server "${server}" was aborted by the caller.`,
  requestTimeout: (server: string, what: string, timeoutMs: number) =>
    `${capitalize(what)} on server "${server}" did not finish within ${timeoutMs} ms; the request was cancelled.`,
  requestServerStopped: (server: string, what: string) =>
    `Server "${server}" stopped during ${what}. mcp-bridge reconnects automatically; retry.`,
  requestRejected: (server: string, what: string, detail: string, rpcCode: number) =>
    `Server "${server}" rejected ${what}: ${detail} (JSON-RPC ${rpcCode})`,
  requestFailed: (server: string, what: string, detail: string) =>
    `${capitalize(what)} on server "${server}" failed: ${detail}`,
  promptNotFound: (name: string) =>
    `Unknown prompt "${name}". Run \`mcp-bridge prompts\` to list them; use an exposed name or "server/prompt".`,
  resourceAmbiguous: (uri: string, servers: readonly string[]) =>
    `Resource "${uri}" is served by servers ${servers.map((s) => `"${s}"`).join(" and ")}; pass { server } (CLI: --server) to choose one.`,
  resourceNotFound: (uri: string, searched: readonly string[]) =>
    `No connected server serves resource "${uri}" (searched ${searched.length ? searched.map((s) => `"${s}"`).join(", ") : "no connected server"}). Run \`mcp-bridge resources\` to list them, or pass { server }.`,
} as const;

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
