import type {
  CallToolRequestOptions,
  CallToolResult,
  ClientOptions,
  StandardSchemaV1,
  Tool,
} from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/client";
import { plainToolResult, plainToolResultsEnabled } from "../sdk/plain-tool-result.js";
import { useIdTables } from "../sdk/protocol-tables.js";

type Implementation = ConstructorParameters<typeof Client>[0];

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
    // One insertion and deletion per request: Maps there cost a third of a call's CPU (see sdk/protocol-tables.ts).
    useIdTables(this);
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
    if (this.getProtocolEra() !== "legacy" || !plainToolResultsEnabled())
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
