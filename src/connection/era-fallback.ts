import { SdkError, SdkErrorCode } from "@modelcontextprotocol/client";

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
