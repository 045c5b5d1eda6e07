import type {
  CallToolRequestOptions,
  CallToolResult,
  ClientOptions,
  ConnectOptions,
  JSONRPCResultResponse,
  StandardSchemaV1,
  Tool,
  Transport,
} from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/client";
import { isPlainResultResponse } from "../transport/message.js";
import { useIdTables } from "../util/id-table.js";

type Implementation = ConstructorParameters<typeof Client>[0];

/** The SDK Protocol's request tables `#settled` reads (private in its types; see id-table.ts). */
interface ProtocolTables {
  readonly _responseHandlers: Map<number, (response: JSONRPCResultResponse) => void> | undefined;
  readonly _progressHandlers: Map<number, unknown> | undefined;
  readonly _cleanupTimeout: ((id: number) => void) | undefined;
}

/** How long a server may take to acknowledge a `subscriptions/listen` stream. */
export const LISTEN_ACK_TIMEOUT_MS = 3_000;

/**
 * The SDK client with a cheaper `tools/call` for the common case. `Client.callTool` works out, on every
 * call, how to validate the result: it looks the tool up in its response cache (asynchronously) for an
 * output schema, then derives the era's result validator by validating `undefined` and formatting the
 * error it gets, then runs the era's zod schema on the result. For a tool without an output schema on
 * the 2025 wire that is exactly `request(tools/call)` with the era's result validation, which is what
 * `callPlainTool` sends, with a result validator built once per client: results of the shape nearly
 * every tool returns (text blocks, optionally isError) are checked and copied by hand into the very
 * value the era's schema would return; anything else goes through the era's schema itself. Both give
 * the same value or the same error for every result (tested as a property against the SDK's own
 * validation), so nothing the SDK checks is skipped.
 */
export class SessionClient extends Client {
  readonly #resultSchema: StandardSchemaV1<unknown, CallToolResult> = {
    "~standard": {
      version: 1,
      vendor: "mcp-bridge",
      validate: (value) => this.validateToolResult(value),
    },
  };

  /** Told when a `subscriptions/listen` stream was not opened (the server's list changes go unheard). */
  onListenFailed: ((error: unknown) => void) | undefined;

  constructor(info: Implementation, options?: ClientOptions) {
    super(info, options);
    // One insertion and deletion per request: Maps there cost a third of a call's CPU (see id-table.ts).
    useIdTables(this);
  }

  /**
   * Once connected, a plain successful response (see `isPlainResultResponse`) goes straight to the
   * response dispatch. The SDK's message handler would first run its result-response schema on it
   * (and `_onresponse` runs it again); that schema accepts every such message, so the handler would
   * do exactly this. Everything else, and every message of a transport that already had a handler
   * of its own (the SDK calls that one first), still takes the SDK's handler.
   */
  override async connect(transport: Transport, options?: ConnectOptions): Promise<void> {
    const own = transport.onmessage;
    await super.connect(transport, options);
    const dispatch = transport.onmessage;
    if (own !== undefined || dispatch === undefined || this.transport !== transport) return;
    transport.onmessage = (message, extra) => {
      if (!isPlainResultResponse(message)) dispatch(message, extra);
      else if (!this.#settled(message)) this._onresponse(message);
    };
  }

  /**
   * Settles the request a plain result response answers, as the SDK's `_onresponse` would: a numeric
   * id is never a `subscriptions/listen` one (the Client's override takes string ids), and the result
   * check `_onresponse` runs (the result-response schema) accepts every plain result response, so what
   * is left is the dispatch itself, without that schema. False when the response is not for a pending
   * request (or the SDK's tables are not what this expects): `_onresponse` then reports it.
   */
  #settled(response: JSONRPCResultResponse): boolean {
    const id = response.id;
    if (typeof id !== "number") return false;
    const tables = this as unknown as ProtocolTables;
    const handlers = tables._responseHandlers;
    const handler = handlers?.get(id);
    if (!handlers || typeof handler !== "function" || typeof tables._cleanupTimeout !== "function")
      return false;
    handlers.delete(id);
    tables._cleanupTimeout(id);
    tables._progressHandlers?.delete(id);
    handler(response);
    return true;
  }

  /**
   * The SDK opens the list-changes stream while connecting and waits for the server's acknowledgement
   * as long as the whole connect may take; a server that never acknowledges (SDK 1.x servers that
   * answer the 2026-07-28 discovery but not `subscriptions/listen`) would use up the startup time and
   * fail to start. The acknowledgement comes at once from a server that supports it, so the wait is
   * capped: the session then works without list-change notifications, and the host is told.
   */
  override listen(
    filter: Parameters<Client["listen"]>[0],
    options?: Parameters<Client["listen"]>[1],
  ): ReturnType<Client["listen"]> {
    const timeout = Math.min(options?.timeout ?? LISTEN_ACK_TIMEOUT_MS, LISTEN_ACK_TIMEOUT_MS);
    return super.listen(filter, { ...options, timeout }).catch((error: unknown) => {
      this.onListenFailed?.(error);
      throw error;
    });
  }

  /**
   * Calls a tool the caller knows to have no output schema (`definition` is its listing): on the 2025
   * wire through the cheaper path above; otherwise (the newer wire, with its own projections and
   * header mirroring) through `callTool` with the definition, which spares the cache lookup.
   */
  callPlainTool(
    params: { name: string; arguments?: Record<string, unknown> },
    definition: Tool,
    options: CallToolRequestOptions,
  ): Promise<CallToolResult> {
    if (this.getProtocolEra() !== "legacy")
      return this.callTool(params, { ...options, toolDefinition: definition });
    return this.request(
      { method: "tools/call", params },
      this.#resultSchema,
      options,
    ) as Promise<CallToolResult>;
  }

  /** A tools/call result as the era's validation sees it: `{ value }` once accepted, `{ issues }` if not. */
  validateToolResult(value: unknown): StandardSchemaV1.Result<CallToolResult> {
    const plain = plainToolResult(value);
    if (plain) return { value: plain };
    const outcome = this._wireCodec().validateResult("tools/call", value);
    if (outcome.ok) return { value: outcome.value as CallToolResult };
    return {
      issues: [{ message: outcome.reason === "invalid" ? outcome.message : "not-in-era: tools/call" }],
    };
  }
}

/**
 * `{ content: [{ type: "text", text }...], isError? }` with no other key anywhere: the copy the era's
 * schema returns for it (it copies the result object, the array and each block). Undefined otherwise.
 */
function plainToolResult(value: unknown): CallToolResult | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const result = value as Record<string, unknown>;
  let keys = 0;
  for (const key in result) {
    if (key !== "content" && key !== "isError") return undefined;
    keys++;
  }
  const content = result.content;
  if (!Array.isArray(content)) return undefined;
  const isError = result.isError;
  if (keys === 2 && typeof isError !== "boolean") return undefined;
  const blocks: { type: "text"; text: string }[] = new Array(content.length);
  for (let i = 0; i < content.length; i++) {
    const block = content[i] as Record<string, unknown> | null;
    if (typeof block !== "object" || block === null || Array.isArray(block)) return undefined;
    let blockKeys = 0;
    for (const key in block) {
      if (key !== "type" && key !== "text") return undefined;
      blockKeys++;
    }
    const text = block.text;
    if (blockKeys !== 2 || block.type !== "text" || typeof text !== "string") return undefined;
    blocks[i] = { type: "text", text };
  }
  return keys === 2 ? { content: blocks, isError: isError as boolean } : { content: blocks };
}
