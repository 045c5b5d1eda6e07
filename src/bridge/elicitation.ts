import type { Client } from "@modelcontextprotocol/client";
import type { ElicitationHandler, ElicitationResponse } from "./types.js";

/**
 * Default without a host handler: decline. Nobody is there to answer, and a server's own schema
 * defaults are not the user's consent (a server could "ask" for an API key and supply the answer).
 */
export const declineElicitation: ElicitationHandler = (): ElicitationResponse => ({ action: "decline" });

/** Advertises form elicitation and answers `elicitation/create` with the host's handler. */
export function registerElicitation(client: Client, handler: ElicitationHandler): void {
  client.registerCapabilities({ elicitation: { form: {} } });
  client.setRequestHandler("elicitation/create", async (request) => {
    const params = request.params as { message?: string; requestedSchema?: Record<string, unknown> };
    const server = client.getServerVersion()?.name ?? "server";
    const answer = await handler({
      server,
      message: params.message ?? "",
      ...(params.requestedSchema ? { requestedSchema: params.requestedSchema } : {}),
    });
    // Elicitation form values are primitives (or lists of strings) by the spec's schema.
    type FormValue = string | number | boolean | string[];
    return answer.action === "accept"
      ? { action: "accept" as const, content: answer.content as Record<string, FormValue> }
      : { action: answer.action };
  });
}
