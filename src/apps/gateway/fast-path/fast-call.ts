import type {
  CallToolResult,
  JSONRPCErrorResponse,
  JSONRPCResultResponse,
  RequestId,
  Server,
  ServerNotification,
} from "@modelcontextprotocol/server";
import { definedOnly } from "../../../util/defined.js";
import { forOneCall } from "../../../util/linked-abort.js";
import { elicitationModes } from "../forwarding/approval-client.js";
import { FORWARD_TIMEOUT_MS } from "../forwarding/forward.js";
import { type GatewayInstance, serveToolCall, type ToolCallRequest } from "../forwarding/served-tool-call.js";

/**
 * The fast paths answer a `tools/call` on the wire themselves (stdio: one parse and one serialization;
 * HTTP: node:http without web Request/Response objects nor the SDK's transport), through the same
 * `serveToolCall` as the SDK server's handler, and only for requests whose SDK answer they can give
 * identically. Everything else takes the SDK path unchanged. The criteria follow the SDK's own checks:
 *
 * - the JSON-RPC request schema is strict (`jsonrpc`, `id`, `method`, `params` only; an id is a string
 *   or a safe integer), so anything else is left to the SDK's error answer;
 * - the 2025-11-25 `tools/call` params schema wants a string `name` and an object `arguments` (or none);
 * - `_meta.progressToken` (progress goes on the request's own stream), `task` (task-augmented),
 *   `requestState`/`inputResponses` (2026 rounds) and reserved `io.modelcontextprotocol/` envelope
 *   keys change what the SDK does with the request: left to it;
 * - the serving instance must have completed a 2025-era `initialize` (a 2026-07-28 instance serves
 *   rounds through the SDK's envelope).
 *
 * The result is the upstream's as the bridge's client already validated it (see forwardedResult): the
 * SDK path's second validation of the same object finds nothing, so it is skipped here.
 */

/** A `tools/call` request the fast path may take. */
export interface FastToolCall {
  readonly id: RequestId;
  readonly name: string;
  readonly args: Record<string, unknown>;
  /** The request's params as sent (the tracker names and parents its span from them). */
  readonly params: Record<string, unknown>;
}

/** The diagnostic switch: `MCP_BRIDGE_GATEWAY_FAST_PATH=0` sends every request down the SDK path. */
export const FAST_PATH_ENV = "MCP_BRIDGE_GATEWAY_FAST_PATH";

/** Whether the fast paths are on, as the diagnostic switch says (on unless `0`). */
export function fastPathEnabled(env: Readonly<Record<string, string | undefined>>): boolean {
  return env[FAST_PATH_ENV] !== "0";
}

const FIRST_MODERN_REVISION = "2026-07-28";
const REQUEST_KEYS = new Set(["jsonrpc", "id", "method", "params"]);
/** Params keys whose presence makes the SDK treat the call differently (tasks, 2026 rounds). */
const SDK_PARAMS_KEYS = ["task", "requestState", "inputResponses"];
const RESERVED_META_PREFIX = "io.modelcontextprotocol/";

export const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** A JSON-RPC `tools/call` request in the shape both eras' schemas accept, as its parts. */
export interface PlainToolCall {
  readonly id: RequestId;
  readonly params: Record<string, unknown> & { readonly name: string };
  readonly args: Record<string, unknown> | undefined;
}

/**
 * `message` as a strict JSON-RPC `tools/call` request (`jsonrpc`, `id`, `method`, `params` only; an id
 * a string or a safe integer; a string `name`, object `arguments` or none), or undefined: what both
 * fast paths require before their own era's checks.
 */
export function plainToolCallOf(message: unknown): PlainToolCall | undefined {
  if (!isPlainObject(message) || message.method !== "tools/call" || message.jsonrpc !== "2.0")
    return undefined;
  for (const key in message) if (!REQUEST_KEYS.has(key)) return undefined;
  const id = message.id;
  if (typeof id !== "string" && !Number.isSafeInteger(id)) return undefined;
  const params = message.params;
  if (!isPlainObject(params) || typeof params.name !== "string") return undefined;
  const args = params.arguments;
  if (args !== undefined && !isPlainObject(args)) return undefined;
  return { id: id as RequestId, params: params as PlainToolCall["params"], args };
}

/** The message as a fast `tools/call`, or undefined when the SDK path must take it. */
export function fastToolCallOf(message: unknown): FastToolCall | undefined {
  const call = plainToolCallOf(message);
  if (!call) return undefined;
  const { id, params, args } = call;
  if (SDK_PARAMS_KEYS.some((key) => key in params)) return undefined;
  const meta = params._meta;
  if (meta !== undefined) {
    if (!isPlainObject(meta) || "progressToken" in meta) return undefined;
    for (const key in meta) if (key.startsWith(RESERVED_META_PREFIX)) return undefined;
  }
  return { id, name: params.name, args: args ?? {}, params };
}

/** Whether `instance` (built by gatewayServer) has a 2025-era client whose calls a fast path may serve. */
export function servesFastCalls({ server }: GatewayInstance): boolean {
  if (server.transport === undefined) return false;
  if (server.getClientVersion() === undefined) return false;
  const version = server.getNegotiatedProtocolVersion();
  // Revisions are dates: every one before 2026-07-28 is of the session era.
  return version !== undefined && version < FIRST_MODERN_REVISION;
}

export type FastResponse = JSONRPCResultResponse | JSONRPCErrorResponse;

/**
 * Serves a fast call on `instance` (see servesFastCalls): the JSON-RPC response the SDK's Protocol would
 * send, or undefined when the request was cancelled (the SDK never answers a cancelled request).
 * `gone`: aborted when the client went away (its HTTP response closed). `notify` sends a notification
 * tied to the call (an upstream log message of it) on the call's stream, as the SDK context's would.
 */
export async function answerFastCall(
  instance: GatewayInstance,
  call: FastToolCall,
  notify: (notification: ServerNotification) => Promise<void>,
  gone?: AbortSignal,
): Promise<FastResponse | undefined> {
  const { server, calls: entry } = instance;
  const abort = new AbortController();
  // This call's alone: the upstream request takes it as it is (see linked-abort.ts).
  const signal = forOneCall(abort.signal);
  const forget = instance.running.add(call.id, abort);
  const stop = () => abort.abort();
  gone?.addEventListener("abort", stop, { once: true });
  if (gone?.aborted) abort.abort();
  const request: ToolCallRequest = {
    id: call.id,
    signal,
    progressToken: undefined,
    notify,
    // A 2025-11-25 session's level: the last logging/setLevel (the fast path takes no 2026 requests).
    logThreshold: () => entry.scope.logLevel.current(),
  };
  // As on the SDK path (Server.buildContext): a question of the upstream server goes to this
  // instance's client, bounded by the call's signal and FORWARD_TIMEOUT_MS.
  const asked = { signal, timeout: FORWARD_TIMEOUT_MS };
  const downstream = {
    elicit: (params: Parameters<Server["elicitInput"]>[0]) => server.elicitInput(params, asked),
    sample: (params: Parameters<Server["createMessage"]>[0]) => server.createMessage(params, asked),
    elicitModes: () => elicitationModes(server.getClientCapabilities()),
  };
  try {
    const result: CallToolResult = await entry.tracker.handle("tools/call", call.params, () =>
      serveToolCall(entry.scope, call.name, call.args, request, (run) =>
        run(entry.scope.forwarder ? downstream : undefined, signal),
      ),
    );
    if (signal.aborted) return undefined;
    return { result, jsonrpc: "2.0", id: call.id } as FastResponse;
  } catch (error) {
    if (signal.aborted) return undefined;
    return errorResponseOf(call.id, error);
  } finally {
    gone?.removeEventListener("abort", stop);
    forget();
  }
}

/** A thrown error as the SDK's Protocol answers it (its code when a safe integer, else internal error). */
function errorResponseOf(id: RequestId, error: unknown): FastResponse {
  const thrown = (error ?? {}) as { code?: unknown; message?: unknown; data?: unknown };
  const code = Number.isSafeInteger(thrown.code) ? (thrown.code as number) : -32603;
  return {
    jsonrpc: "2.0",
    id,
    error: definedOnly({
      // The 2025 codec's encodeErrorCode: the 2026 "resource not found" code is invalid params there.
      code: code === -32002 ? -32602 : code,
      message: (thrown.message as string | undefined) ?? "Internal error",
      data: thrown.data,
    }),
  } as FastResponse;
}
