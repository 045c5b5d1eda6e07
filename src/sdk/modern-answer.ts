/**
 * Restates SDK behaviour that is not exported: how @modelcontextprotocol/server answers a 2026-07-28
 * `tools/call` once its handler returned: the codec's `encodeResult` and `encodeErrorCode`, and the
 * server's input-request gate (`_invokeInputRequiredCapableHandler`, with
 * `requiredClientCapabilitiesForInputRequest` and `missingClientCapabilities`). The gateway's fast path
 * (apps/gateway/fast-path/modern-call.ts) answers with these instead of the SDK's per-request server.
 * Checked against @modelcontextprotocol/server and core 2.4.0; the fast path's answers are tested equal
 * to the SDK path's (test/gateway/).
 * Bench (`node dist/bench/gateway-hop.js --quick`, gateway CPU per stateless 2026-07-28 call at 1 in
 * flight, MCP_BRIDGE_SDK_SHIMS with and without `modern-answer`, one run each on the loaded shared
 * machine): 1030 us with it, 1930 us without (steady); 1380 against 2420 us for the first 500 calls.
 * Kept.
 *
 * Detection: none of this can be observed from outside the SDK, so it is used only while the installed
 * server package is the 2.4 line it was checked against (and the shim is on, see shims.ts); any other
 * version leaves every such call to the SDK's own path.
 */
import type { CallToolResult, InputRequiredResult, RequestId } from "@modelcontextprotocol/server";
import { CLIENT_CAPABILITIES_META_KEY } from "@modelcontextprotocol/server";
import { installedVersion, sdkShimEnabled } from "./shims.js";

/** The server package line the restatements below were checked against. */
const CHECKED_LINE = "2.4.";

let versionMatches: boolean | undefined;

/** Whether the gateway may answer a 2026-07-28 call itself (see above). */
export function modernAnswerEnabled(): boolean {
  if (!sdkShimEnabled("modern-answer")) return false;
  versionMatches ??= installedVersion("@modelcontextprotocol/server")?.startsWith(CHECKED_LINE) ?? false;
  return versionMatches;
}

/** A JSON-RPC response of the fast path: the message written back. */
export type ModernResponse = Record<string, unknown>;

type Answer = CallToolResult | InputRequiredResult;

/** A thrown error as the SDK's Protocol answers it on this revision (its code when a safe integer). */
export function errorResponseOf(id: RequestId, error: unknown): ModernResponse {
  const thrown = (error ?? {}) as { code?: unknown; message?: unknown; data?: unknown };
  const code = Number.isSafeInteger(thrown.code) ? (thrown.code as number) : -32603;
  const body: Record<string, unknown> = {
    // The codec's encodeErrorCode: "resource not found" is invalid params on the wire.
    code: code === -32002 ? -32602 : code,
    message: (thrown.message as string | undefined) ?? "Internal error",
  };
  if (thrown.data !== undefined) body.data = thrown.data;
  return { jsonrpc: "2.0", id, error: body };
}

/**
 * A result as the SDK's 2026-07-28 codec encodes it (`encodeResult`): `resultType` stamped
 * `complete` when the handler gave none, and the server's identity added to `_meta` unless it is
 * there already or `_meta` is not an object. (tools/call results are not cacheable: no cache fields.)
 */
export function encodedResult(
  result: Answer,
  serverInfo: { readonly name: string; readonly version: string },
): Record<string, unknown> {
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
export function inputGateRefusal(
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

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
