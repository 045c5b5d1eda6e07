import {
  AbortError,
  ErrorCode,
  errorMessages,
  InvalidArgumentsError,
  McpBridgeError,
  ServerConnectionError,
  ServerCrashedError,
  ServerRequestError,
  SkillVerificationError,
} from "./index.js";

/**
 * The errors of the MCP features beyond tools (resources, prompts, completions, skills), one factory
 * per situation: each composes the code, the message and the fields, so a throw site writes no wording.
 */

/** What a request was about, as its errors name it: the MCP method and the item (a URI, a prompt). */
export interface RequestSubject {
  readonly server: string;
  readonly method: string;
  readonly item?: string;
  /** The method and item as the message shows them, with the bridge's secrets masked. */
  readonly what: string;
  readonly cause?: unknown;
}

function requestFields(subject: RequestSubject) {
  return { server: subject.server, method: subject.method, item: subject.item, cause: subject.cause };
}

export function bridgeClosed(): McpBridgeError {
  return new McpBridgeError(ErrorCode.BridgeClosed, errorMessages.bridgeClosed());
}

export function serverNotFound(options: {
  server: string;
  configured: readonly string[];
}): ServerConnectionError {
  return new ServerConnectionError(
    ErrorCode.ServerNotFound,
    errorMessages.serverNotFound(options.server, options.configured),
    { server: options.server },
  );
}

export function requestNoSession(subject: RequestSubject): ServerRequestError {
  return new ServerRequestError(
    ErrorCode.RequestFailed,
    errorMessages.requestNoSession(subject.server, subject.what),
    requestFields(subject),
  );
}

export function requestAborted(subject: RequestSubject): AbortError {
  return new AbortError(errorMessages.requestAborted(subject.server, subject.what), {
    server: subject.server,
    cause: subject.cause,
  });
}

export function requestTimedOut(subject: RequestSubject & { timeoutMs: number }): ServerRequestError {
  return new ServerRequestError(
    ErrorCode.RequestTimeout,
    errorMessages.requestTimeout(subject.server, subject.what, subject.timeoutMs),
    requestFields(subject),
  );
}

export function requestServerStopped(subject: RequestSubject): ServerCrashedError {
  return new ServerCrashedError(errorMessages.requestServerStopped(subject.server, subject.what), {
    server: subject.server,
    cause: subject.cause,
  });
}

/** The server answered with a JSON-RPC error; "resource not found" (-32002) gets its own code. */
export function requestRejected(
  subject: RequestSubject & { detail: string; rpcCode: number; notFound: boolean },
): ServerRequestError {
  return new ServerRequestError(
    subject.notFound ? ErrorCode.ResourceNotFound : ErrorCode.RequestFailed,
    errorMessages.requestRejected(subject.server, subject.what, subject.detail, subject.rpcCode),
    { ...requestFields(subject), rpcCode: subject.rpcCode },
  );
}

export function requestFailed(subject: RequestSubject & { detail: string }): ServerRequestError {
  return new ServerRequestError(
    ErrorCode.RequestFailed,
    errorMessages.requestFailed(subject.server, subject.what, subject.detail),
    requestFields(subject),
  );
}

export function resourceAmbiguous(options: { uri: string; servers: readonly string[] }): ServerRequestError {
  return new ServerRequestError(
    ErrorCode.ResourceAmbiguous,
    errorMessages.resourceAmbiguous(options.uri, options.servers),
    {
      method: "resources/read",
      item: options.uri,
      server: options.servers[0],
    },
  );
}

export function resourceNotFound(options: { uri: string; searched: readonly string[] }): ServerRequestError {
  return new ServerRequestError(
    ErrorCode.ResourceNotFound,
    errorMessages.resourceNotFound(options.uri, options.searched),
    {
      method: "resources/read",
      item: options.uri,
    },
  );
}

export function promptNotFound(options: { name: string }): ServerRequestError {
  return new ServerRequestError(ErrorCode.PromptNotFound, errorMessages.promptNotFound(options.name), {
    method: "prompts/get",
    item: options.name,
  });
}

/** Required prompt arguments the caller did not give; nothing was sent to the server. */
export function promptArgumentsMissing(options: {
  server: string;
  prompt: string;
  missing: readonly string[];
}): InvalidArgumentsError {
  const { server, prompt, missing } = options;
  const names = missing.map((name) => `"${name}"`).join(", ");
  return new InvalidArgumentsError(
    `Prompt "${prompt}" (server "${server}") needs the argument${missing.length > 1 ? "s" : ""} ${names}.`,
    { server, issues: missing.map((path) => ({ path, message: "is required" })) },
  );
}

export function skillAmbiguous(options: { name: string; servers: readonly string[] }): McpBridgeError {
  return new McpBridgeError(
    ErrorCode.SkillNotFound,
    errorMessages.skillAmbiguous(options.name, options.servers),
  );
}

export function skillNotFound(options: {
  name: string;
  server: string | undefined;
  listed: readonly string[];
}): McpBridgeError {
  return new McpBridgeError(
    ErrorCode.SkillNotFound,
    errorMessages.skillNotFound(options.name, options.server, options.listed),
    { server: options.server },
  );
}

/** A skill file that does not match the server's own listing (size, digest, frontmatter), or a listing past the limits. */
export function skillVerificationFailed(options: {
  server: string;
  skill: string;
  uri: string;
  reason: SkillVerificationError["reason"];
  detail: string;
  differences?: readonly string[];
  cause?: unknown;
}): SkillVerificationError {
  const { server, skill, uri, reason, detail, differences, cause } = options;
  return new SkillVerificationError(errorMessages.skillVerification(server, skill, detail), {
    server,
    skill,
    uri,
    reason,
    differences,
    cause,
  });
}

/** A skill whose listing passes the skills extension's limits (files, total bytes): nothing is read. */
export function skillBeyondLimits(options: {
  server: string;
  skill: string;
  uri: string;
  files: number;
  bytes: number;
  limits: { readonly files: number; readonly bytes: number };
}): SkillVerificationError {
  const { files, bytes, limits } = options;
  return skillVerificationFailed({
    ...options,
    reason: "size",
    detail: `its listing has ${files} files and ${bytes} bytes, beyond the skills extension's limits (${limits.files} files, ${limits.bytes} bytes)`,
  });
}
