import type { Client } from "@modelcontextprotocol/client";
import type { ElicitationHandler, ElicitationRequest, ElicitationResponse } from "./types.js";

/** Non-interactive default: accept with the schema's defaults when they cover every required field. */
export const applySchemaDefaults: ElicitationHandler = (request: ElicitationRequest): ElicitationResponse => {
  if (request.mode === "url") return { action: "decline" };
  const schema = request.requestedSchema ?? {};
  const properties = (schema.properties ?? {}) as Record<string, { default?: unknown }>;
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  const content: Record<string, unknown> = {};
  for (const [name, property] of Object.entries(properties)) {
    if (property && property.default !== undefined) content[name] = property.default;
  }
  return required.every((name) => name in content) ? { action: "accept", content } : { action: "decline" };
};

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
