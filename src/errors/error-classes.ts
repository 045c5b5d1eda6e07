/**
 * Every error mcp-bridge throws is a McpBridgeError with a stable string `code`.
 * Classify where the error is raised; callers branch on `code`, never on message text.
 * The classes here are the error shapes; each situation is built by one factory in the sibling
 * files (server-errors.ts, tool-errors.ts, ...), which alone write the wording.
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
  /** The tool's definition changed (or it is new) since its server's tools were pinned, and drifts are blocked. */
  ToolChanged: "TOOL_CHANGED",
  ToolTimeout: "TOOL_TIMEOUT",
  Aborted: "ABORTED",
  ToolExecution: "TOOL_EXECUTION",
  /** The call policy (config `policy`, or the managed policy file) refused a call; it never reached the server. */
  PolicyDenied: "POLICY_DENIED",
  /** The guardrails (config `guardrails`) refused a call's arguments or withheld its result. */
  GuardrailBlocked: "GUARDRAIL_BLOCKED",
  /** The audit log could not be written (so the call was not sent), or `audit verify` found a broken chain. */
  AuditFailed: "AUDIT_FAILED",
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
  /** An HTTP request to the gateway's REST face that it cannot serve: unknown path, wrong method, malformed or oversized body. */
  BadRequest: "BAD_REQUEST",
  /** The gateway refused a client's call under its per-client limits (running calls, calls per minute). */
  RateLimited: "RATE_LIMITED",
  /** A code-mode program went past one of its limits (CPU time, memory, output, tool calls, wall time). */
  CodeLimit: "CODE_LIMIT",
  /** A code-mode program did not compile or threw (its own error, or a failed tool call it did not catch). */
  CodeFailed: "CODE_FAILED",
  /** A part of mcp-bridge loaded on first use could not be loaded: the installation is incomplete or broken. */
  ModuleLoadFailed: "MODULE_LOAD_FAILED",
  /** A `${keyring:NAME}` (or `secrets get NAME`) names a secret the chosen store does not hold. */
  SecretNotFound: "SECRET_NOT_FOUND",
  /** The secret store could not be used: no OS credential store, a wrong passphrase, a tampered file. */
  SecretStoreFailed: "SECRET_STORE_FAILED",
  /** An MCP Registry could not be reached, answered something unusable, or has no such server. */
  RegistryFailed: "REGISTRY_FAILED",
  /**
   * A server installed from a registry was refused: its package does not match the recorded integrity,
   * it has a malware advisory, or the managed policy does not allow where it comes from.
   */
  PackageRefused: "PACKAGE_REFUSED",
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
    const json: { code: ErrorCode; message: string; server?: string; tool?: string } = {
      code: this.code,
      message: this.message,
    };
    if (this.server !== undefined) json.server = this.server;
    if (this.tool !== undefined) json.tool = this.tool;
    return json;
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

/** A call of a tool kept out because its definition drifted from its pin (see bridge/pins). */
export class ToolChangedError extends McpBridgeError {
  /** What changed, one line each (`changed tool "x": description`, its diff lines, `new tool "y"`). */
  readonly drift: readonly string[];
  constructor(message: string, fields: McpBridgeErrorFields & { drift: readonly string[] }) {
    super(ErrorCode.ToolChanged, message, fields);
    this.drift = fields.drift;
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
    const json: ReturnType<McpBridgeError["toJSON"]> & { method: string; item?: string } = {
      ...super.toJSON(),
      method: this.method,
    };
    if (this.item !== undefined) json.item = this.item;
    return json;
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

/** Which limit of a code-mode execution was reached (see `CodeModeLimits`). */
export type CodeLimitKind = "cpu" | "memory" | "output" | "toolCalls" | "wallTime";

/** A code-mode program went past one of its limits; it was stopped and its tool calls cancelled. */
export class CodeLimitError extends McpBridgeError {
  readonly limit: CodeLimitKind;
  constructor(message: string, fields: McpBridgeErrorFields & { limit: CodeLimitKind }) {
    super(ErrorCode.CodeLimit, message, fields);
    this.limit = fields.limit;
  }
}
