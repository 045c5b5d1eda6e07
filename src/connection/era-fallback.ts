import { SdkError, SdkErrorCode } from "@modelcontextprotocol/client";
import { ToolExecutionError } from "../errors/index.js";

/**
 * Whether a result was refused because it lacks the fields the 2026-07-28 protocol requires
 * (`resultType`). Some servers (SDK 1.x builds among them) answer the 2026-07-28 discovery, so
 * negotiation picks that protocol, yet answer in the 2025 shape: every such result is refused, and
 * only the 2025-11-25 handshake makes the server usable.
 */
export function isIncompleteModernResult(error: unknown): boolean {
  return (
    SdkError.isInstance(error) &&
    error.code === SdkErrorCode.InvalidResult &&
    /missing required resultType/i.test(error.message)
  );
}

/** The call that found it out: it may have run on the server, so it is not sent again by itself. */
export function incompleteModernError(server: string, tool: string, cause: unknown): ToolExecutionError {
  return new ToolExecutionError(
    `Server "${server}" answered tool "${tool}" in the 2026-07-28 protocol without the fields that protocol requires; ` +
      `mcp-bridge reconnects it with the 2025-11-25 handshake. The call may have run: call it again if its effect is missing, ` +
      `or set "negotiation": "legacy" for this server.`,
    { server, tool, cause },
  );
}
