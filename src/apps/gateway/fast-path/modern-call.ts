import type { IncomingHttpHeaders } from "node:http";
import {
  classifyInboundRequest,
  LOG_LEVEL_META_KEY,
  type RequestId,
  type ServerContext,
} from "@modelcontextprotocol/server";
import {
  encodedResult,
  errorResponseOf,
  inputGateRefusal,
  modernAnswerEnabled,
} from "../../../sdk/modern-answer.js";
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
 * of the request (the `_meta` envelope, `requestState`, `inputResponses`), and answered as the SDK's
 * codec and input gate would (restated in sdk/modern-answer.ts, which says when it may be used).
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
 * path serves. Never while the SDK's answer cannot be restated (see sdk/modern-answer.ts).
 */
export function announcesModernCall(headers: IncomingHttpHeaders): boolean {
  return (
    modernAnswerEnabled() &&
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
    return { result: encodedResult(result, entry.serverInfo), jsonrpc: "2.0", id: call.id } as FastResponse;
  } catch (error) {
    if (gone.aborted) return undefined;
    return errorResponseOf(call.id, error) as FastResponse;
  }
}
