import { SdkError } from "@modelcontextprotocol/client";
import type { ServerDefinition } from "../config/model.js";

/**
 * What the connection needs to know of transports before any is made (which to try, how a failure
 * reads), apart from create.ts, which pulls in every transport implementation (process supervision,
 * the sandbox, HTTP and SSE clients) and is loaded only when a server is first connected.
 */

/** One way of reaching a server; an inferred `url` has two (Streamable HTTP, then legacy SSE). */
export type TransportAttempt = "stdio" | "streamable-http" | "sse" | "in-process";

export function transportAttempts(definition: ServerDefinition): TransportAttempt[] {
  if (definition.transport === "stdio") return ["stdio"];
  if (definition.transport === "in-process") return ["in-process"];
  if (definition.transport === "sse") return ["sse"];
  return definition.fallbackToSse ? ["streamable-http", "sse"] : ["streamable-http"];
}

/** JSON-RPC error code for a response dropped for exceeding `maxMessageBytes` (implementation-defined range). */
export const RESULT_TOO_LARGE_RPC_CODE = -32099;

/**
 * Whether a failed Streamable HTTP connect means "this is a legacy HTTP+SSE server": the spec's
 * backwards-compatibility rule is a 4xx answer to the initializing POST (auth failures excepted).
 */
export function looksLikeLegacySseServer(error: unknown): boolean {
  const status = httpStatusOf(error);
  if (status === undefined) return false;
  return status >= 400 && status < 500 && status !== 401 && status !== 403;
}

export function httpStatusOf(error: unknown): number | undefined {
  for (let current: unknown = error, depth = 0; current && depth < 5; depth++) {
    if (current instanceof SdkError) {
      const data = current.data as { status?: unknown } | undefined;
      if (typeof data?.status === "number") return data.status;
    }
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
