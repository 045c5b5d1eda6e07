import type { IncomingHttpHeaders } from "node:http";
import {
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  classifyInboundRequest,
  type InputRequiredResult,
  LOG_LEVEL_META_KEY,
  type RequestId,
  type ServerContext,
} from "@modelcontextprotocol/server";
import {
  serveToolCall,
  type ToolCallEntry,
  type ToolCallRequest,
  type UpstreamRun,
} from "../forwarding/served-tool-call.js";
import { type FastResponse, isPlainObject, plainToolCallOf } from "./fast-call.js";

/**
 * The fast path of a stateless 2026-07-28 `tools/call` POST (see http-fast-path.ts). The SDK's entry
 * (`createMcpHandler`) decides the era and refuses malformed requests from the body and the standard
 * headers; the fast path takes a request only when that decision is "serve it" with nothing else to
 * do, which it establishes with the SDK's own classifier (`classifyInboundRequest`) and the checks its
 * entry makes next (`validateStandardRequestHeaders`, not exported: restated in `headersAgree`).
 * Left to the SDK (its answer is then whatever it is): any other revision, a rejection of the ladder,
 * an `Mcp-Name` header in its Base64 form, a JSON-RPC shape its schemas may refuse, a progress token
 * or a log level in `_meta` (notifications would turn the answer into an event stream), tasks.
 *
 * The call itself runs exactly as the SDK server's handler runs it (mcp-server.ts): the same
 * `serveToolCall`, the same input rounds (a retry's `requestState` opened, a parked call resumed, an
 * upstream's questions returned as `input_required`), with a context holding what the SDK lifts out
 * of the request (the `_meta` envelope, `requestState`, `inputResponses`).
 */

const REVISION = "2026-07-28";
/** The reserved envelope keys the SDK lifts out of `_meta` before a handler sees the params. */
const ENVELOPE_PREFIX = "io.modelcontextprotocol/";
const ENVELOPE_KEYS = [
  "io.modelcontextprotocol/protocolVersion",
  "io.modelcontextprotocol/clientInfo",
  "io.modelcontextprotocol/clientCapabilities",
  LOG_LEVEL_META_KEY,
];
const PARAMS_KEYS = new Set(["name", "arguments", "_meta", "requestState", "inputResponses"]);

/** What a 2026-07-28 call is served with: the scope a per-request server instance would have. */
export interface ModernCallEntry extends ToolCallEntry {
  /** The server's name and version, stamped into every result's `_meta` as the SDK does. */
  readonly serverInfo: { readonly name: string; readonly version: string };
}

/** A 2026-07-28 `tools/call` the fast path may take. */
export interface ModernToolCall {
  readonly id: RequestId;
  readonly name: string;
  readonly args: Record<string, unknown>;
  /** The params as the SDK hands them to a handler: envelope keys and retry fields lifted out. */
  readonly params: Record<string, unknown>;
  readonly envelope: Record<string, unknown>;
  readonly requestState: string | undefined;
  readonly inputResponses: Record<string, unknown> | undefined;
}

/**
 * Whether a POST's headers announce a 2026-07-28 `tools/call` (before its body is read): the SDK
 * requires both standard headers on such a request, so a request without them is never one the fast
 * path serves.
 */
export function announcesModernCall(headers: IncomingHttpHeaders): boolean {
  return (
    headers["mcp-method"] === "tools/call" &&
    headers["mcp-protocol-version"] === REVISION &&
    typeof headers["mcp-name"] === "string" &&
    headers["mcp-session-id"] === undefined
  );
}

/** The message as a fast 2026-07-28 `tools/call`, or undefined when the SDK path must take it. */
export function modernToolCallOf(headers: IncomingHttpHeaders, message: unknown): ModernToolCall | undefined {
  const call = plainToolCallOf(message);
  if (!call) return undefined;
  const { id, params, args } = call;
  for (const key in params) if (!PARAMS_KEYS.has(key)) return undefined;
  const meta = params._meta;
  if (!isPlainObject(meta) || "progressToken" in meta || LOG_LEVEL_META_KEY in meta) return undefined;
  const requestState = params.requestState;
  if (requestState !== undefined && typeof requestState !== "string") return undefined;
  const inputResponses = params.inputResponses;
  if (inputResponses !== undefined && !isPlainObject(inputResponses)) return undefined;
  if (headers["mcp-name"] !== params.name || !servedAsModern(message as Record<string, unknown>, meta))
    return undefined;
  const envelope: Record<string, unknown> = {};
  const rest: Record<string, unknown> = {};
  for (const key in meta) {
    if (ENVELOPE_KEYS.includes(key)) envelope[key] = meta[key];
    else if (key.startsWith(ENVELOPE_PREFIX)) return undefined;
    else rest[key] = meta[key];
  }
  const lifted: Record<string, unknown> = { name: params.name };
  if (args !== undefined) lifted.arguments = args;
  if (Object.keys(rest).length > 0) lifted._meta = rest;
  return {
    id,
    name: params.name,
    args: args ?? {},
    params: lifted,
    envelope,
    requestState,
    inputResponses,
  };
}

/**
 * Whether the SDK's own classifier (`classifyInboundRequest`) routes the request to its modern path at
 * this revision rather than refusing it. For a request of the shape modernToolCallOf admits, with the
 * headers announcesModernCall requires, its answer depends on `_meta` alone: the JSON-RPC request
 * schema is strict on the keys checked above and loose inside `params` and `_meta` (no progress token
 * nor reserved key other than the envelope's here), and the rest is the envelope's validation and its
 * cross-checks against the fixed headers. So the verdict is kept per `_meta` text (a client sends the
 * same envelope with every request), in a table bounded by MAX_VERDICTS and MAX_KEY_CHARS.
 */
function servedAsModern(message: Record<string, unknown>, meta: Record<string, unknown>): boolean {
  const key = JSON.stringify(meta);
  // A long `_meta` is classified each time: the table must not hold much of what clients send.
  let verdict = key.length <= MAX_KEY_CHARS ? verdicts.get(key) : undefined;
  if (verdict === undefined) {
    const route = classifyInboundRequest({
      httpMethod: "POST",
      protocolVersionHeader: REVISION,
      mcpMethodHeader: "tools/call",
      body: message,
    });
    verdict = route.kind === "modern" && route.classification.revision === REVISION;
    if (verdicts.size >= MAX_VERDICTS) verdicts.clear();
    if (key.length <= MAX_KEY_CHARS) verdicts.set(key, verdict);
  }
  return verdict;
}

const MAX_VERDICTS = 256;
const MAX_KEY_CHARS = 4096;
const verdicts = new Map<string, boolean>();

/**
 * Serves a fast 2026-07-28 call with `entry`'s scope: the JSON-RPC response the SDK's server would
 * send, or undefined when the client went away first (`gone`; the SDK answers nothing then).
 */
export async function answerModernCall(
  entry: ModernCallEntry,
  call: ModernToolCall,
  gone: AbortSignal,
): Promise<FastResponse | undefined> {
  const { scope, tracker } = entry;
  const { forwarder, client } = scope;
  // What InputRounds reads of an SDK context: the lifted envelope and retry fields, and the signal.
  const ctx = {
    mcpReq: {
      id: call.id,
      signal: gone,
      envelope: call.envelope,
      _meta: call.params._meta,
      requestState: () => call.requestState,
      inputResponses: call.inputResponses,
    },
  } as unknown as ServerContext;
  const request: ToolCallRequest = {
    id: call.id,
    signal: gone,
    progressToken: undefined,
    // Nothing is sent before the result: no progress token, and no log level (so no log messages).
    notify: async () => undefined,
    logThreshold: () => "none",
  };
  const roundCall = { tool: call.name, args: call.args };
  try {
    const result = await tracker.handle("tools/call", call.params, async () => {
      const retry =
        forwarder && call.requestState !== undefined
          ? forwarder.rounds.open(client.id, roundCall, ctx)
          : undefined;
      if (forwarder && retry?.kind === "parked") return forwarder.rounds.resume(retry, roundCall, ctx);
      const start = (run: UpstreamRun) => {
        if (!forwarder) return run(undefined, gone);
        const round = retry?.kind === "upstream" ? retry.round : {};
        return forwarder.rounds.start(client.id, roundCall, ctx, run, round);
      };
      return serveToolCall(scope, call.name, call.args, request, start);
    });
    if (gone.aborted) return undefined;
    const refused = inputGateRefusal(result, call.envelope);
    if (refused) return { jsonrpc: "2.0", id: call.id, error: refused } as FastResponse;
    return { result: encoded(result, entry.serverInfo), jsonrpc: "2.0", id: call.id } as FastResponse;
  } catch (error) {
    if (gone.aborted) return undefined;
    return errorResponseOf(call.id, error);
  }
}

/** A thrown error as the SDK's Protocol answers it on this revision (its code when a safe integer). */
function errorResponseOf(id: RequestId, error: unknown): FastResponse {
  const thrown = (error ?? {}) as { code?: unknown; message?: unknown; data?: unknown };
  const code = Number.isSafeInteger(thrown.code) ? (thrown.code as number) : -32603;
  const body: Record<string, unknown> = {
    // The codec's encodeErrorCode: "resource not found" is invalid params on the wire.
    code: code === -32002 ? -32602 : code,
    message: (thrown.message as string | undefined) ?? "Internal error",
  };
  if (thrown.data !== undefined) body.data = thrown.data;
  return { jsonrpc: "2.0", id, error: body } as FastResponse;
}

type Answer = CallToolResult | InputRequiredResult;

/**
 * A result as the SDK's 2026-07-28 codec encodes it (`encodeResult`): `resultType` stamped
 * `complete` when the handler gave none, and the server's identity added to `_meta` unless it is
 * there already or `_meta` is not an object. (tools/call results are not cacheable: no cache fields.)
 */
function encoded(result: Answer, serverInfo: ModernCallEntry["serverInfo"]): Record<string, unknown> {
  let next = result as Record<string, unknown>;
  if (next.resultType === undefined) next = { ...next, resultType: "complete" };
  const meta = next._meta;
  if (meta === undefined) return { ...next, _meta: { [SERVER_INFO_KEY]: serverInfo } };
  if (!isPlainObject(meta) || meta[SERVER_INFO_KEY] !== undefined) return next;
  return { ...next, _meta: { ...meta, [SERVER_INFO_KEY]: serverInfo } };
}

const SERVER_INFO_KEY = "io.modelcontextprotocol/serverInfo";

/**
 * The SDK server's gate on an `input_required` answer (`_invokeInputRequiredCapableHandler`): every
 * question must be covered by the capabilities the request declared, else the answer is its -32021
 * error. InputRounds asks only what the client declared, so this finds nothing in practice; it keeps
 * the fast answer the SDK's when a question needs a sub-capability (a URL-mode elicitation, sampling
 * with tools) the client did not declare.
 */
function inputGateRefusal(
  result: Answer,
  envelope: Record<string, unknown>,
): Record<string, unknown> | undefined {
  if ((result as { resultType?: unknown }).resultType !== "input_required") return undefined;
  const requests = (result as InputRequiredResult).inputRequests;
  if (!requests) return undefined;
  const declared = envelope[CLIENT_CAPABILITIES_META_KEY] as Record<string, unknown> | undefined;
  for (const [key, entry] of Object.entries(requests)) {
    const method = (entry as { method?: unknown } | null)?.method;
    if (typeof method !== "string") {
      const message = `Handler for tools/call returned an invalid input request '${key}': each inputRequests entry must be an embedded elicitation/create, sampling/createMessage, or roots/list request`;
      return { code: -32603, message };
    }
    const required = requiredFor({ method, params: (entry as { params?: Record<string, unknown> }).params });
    if (!required) {
      const message = `Handler for tools/call returned an input request '${key}' of kind '${method}', which is not an embedded request the 2026-07-28 revision defines`;
      return { code: -32603, message };
    }
    const missing = missingCapabilities(required, declared);
    if (missing) {
      return {
        code: -32021,
        message: `Cannot request input '${key}' (${String(method)}): the request's client capabilities do not declare the required capability`,
        data: { requiredCapabilities: missing },
      };
    }
  }
  return undefined;
}

/** The SDK's requiredClientCapabilitiesForInputRequest. */
function requiredFor(entry: {
  method: string;
  params?: Record<string, unknown>;
}): Record<string, unknown> | undefined {
  switch (entry.method) {
    case "elicitation/create":
      return entry.params?.mode === "url" ? { elicitation: { url: {} } } : { elicitation: { form: {} } };
    case "sampling/createMessage":
      return entry.params?.tools !== undefined || entry.params?.toolChoice !== undefined
        ? { sampling: { tools: {} } }
        : { sampling: {} };
    case "roots/list":
      return { roots: {} };
    default:
      return undefined;
  }
}

/** The SDK's missingClientCapabilities (a bare `elicitation: {}` declares form mode). */
function missingCapabilities(
  required: Record<string, unknown>,
  declared: Record<string, unknown> | undefined,
): Record<string, unknown> | undefined {
  const missing: Record<string, unknown> = {};
  for (const [capability, requirement] of Object.entries(required)) {
    const value = declared?.[capability];
    if (value === undefined) {
      missing[capability] = requirement;
      continue;
    }
    if (!isPlainObject(requirement) || !isPlainObject(value)) continue;
    const members: Record<string, unknown> = {};
    for (const [member, need] of Object.entries(requirement)) {
      const implied =
        capability === "elicitation" &&
        member === "form" &&
        value.form === undefined &&
        value.url === undefined;
      if (value[member] === undefined && !implied) members[member] = need;
    }
    if (Object.keys(members).length > 0) missing[capability] = members;
  }
  return Object.keys(missing).length > 0 ? missing : undefined;
}
