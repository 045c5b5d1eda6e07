import { ErrorCode, McpBridgeError } from "../errors/index.js";
import type { ToolDefinition } from "../registry/tool-definition.js";
import type { ServerRecord } from "./servers/server-record.js";

/**
 * The opt-in retry of a call its server's crash cut short (`retryCrashedCalls`): only a tool that
 * says a second call does no harm (`readOnlyHint` or `idempotentHint`) is sent again, once, after
 * the server reconnected. A tool that changes things may have done so before the crash.
 */

/** Whether this failure of this call may be retried once after the server reconnects. */
export function retriesAfterCrash(record: ServerRecord, definition: ToolDefinition, error: unknown): boolean {
  if (record.definition.retryCrashedCalls !== true) return false;
  if (!(error instanceof McpBridgeError && error.code === ErrorCode.ServerCrashed)) return false;
  const hints = definition.annotations;
  return hints?.readOnlyHint === true || hints?.idempotentHint === true;
}

/** Waits for the server to be back, within the call's remaining time; false if it did not come back. */
export function awaitReconnect(
  record: ServerRecord,
  options: { signal?: AbortSignal; timeoutMs: number },
): Promise<boolean> {
  return record.ensureConnected(options).then(
    () => true,
    () => false,
  );
}
