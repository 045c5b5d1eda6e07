import { type Client, ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/client";
import { elicitationMismatchText } from "../../errors/sampling-errors.js";
import { validateArguments } from "../../registry/validate.js";
import { definedOnly } from "../../util/defined.js";
import type { Logger } from "../../util/logger.js";
import type { ElicitationHandler, ElicitationRequest, ElicitationResponse } from "../api.js";

/**
 * Default without a host handler: decline. Nobody is there to answer, and a server's own schema
 * defaults are not the user's consent (a server could "ask" for an API key and supply the answer).
 */
export const declineElicitation: ElicitationHandler = (): ElicitationResponse => ({ action: "decline" });

/**
 * Answers `elicitation/create` in both modes with the host's handler, under the server's config name:
 * form mode (the answer is checked against the server's requested schema before it is sent) and URL
 * mode (declared only when the host gave a handler, since only a host can open a URL for its user).
 * An answer that does not match the schema is not sent: the server gets an error naming the fields,
 * the host's log a warning naming server and fields.
 */
export function registerElicitationModes(
  client: Client,
  options: {
    readonly server: string;
    readonly handler: ElicitationHandler;
    /** The host gave its own handler (URL mode is declared only then). */
    readonly hostHandler: boolean;
    readonly logger: Logger;
  },
): void {
  const { server, handler, logger } = options;
  client.registerCapabilities({ elicitation: options.hostHandler ? { form: {}, url: {} } : { form: {} } });
  client.setRequestHandler("elicitation/create", async (request) => {
    const params = request.params as {
      mode?: string;
      message?: string;
      requestedSchema?: Record<string, unknown>;
      url?: string;
      elicitationId?: string;
    };
    if (params.mode === "url") {
      // The host's handler sees absent fields as absent (`"url" in request`), as the server sent them.
      const answer = await handler(
        definedOnly({
          server,
          mode: "url" as const,
          message: params.message ?? "",
          url: typeof params.url === "string" ? params.url : undefined,
          elicitationId: typeof params.elicitationId === "string" ? params.elicitationId : undefined,
        }) as ElicitationRequest,
      );
      // URL mode carries no content: accepting means the user agreed to open the link.
      return { action: answer.action };
    }
    const answer: ElicitationResponse = await handler(
      definedOnly({
        server,
        mode: "form" as const,
        message: params.message ?? "",
        requestedSchema: params.requestedSchema ? params.requestedSchema : undefined,
      }) as ElicitationRequest,
    );
    if (answer.action !== "accept") return { action: answer.action };
    const issues = params.requestedSchema ? validateArguments(params.requestedSchema, answer.content) : [];
    if (issues.length > 0) {
      const detail = issues.map((issue) => `${issue.path || "(answer)"}: ${issue.message}`).join("; ");
      logger.warn(`The answer to server "${server}"'s elicitation does not match its schema; not sent`, {
        server,
        issues: detail,
      });
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, elicitationMismatchText({ server, detail }));
    }
    // Elicitation form values are primitives (or lists of strings) by the spec's schema.
    type FormValue = string | number | boolean | string[];
    return { action: "accept" as const, content: answer.content as Record<string, FormValue> };
  });
}
