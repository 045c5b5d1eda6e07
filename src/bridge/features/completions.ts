import type { CompleteRequestParams, CompleteResult } from "@modelcontextprotocol/client";
import { definedOnly } from "../../util/defined.js";
import {
  assertOpen,
  type FeatureContext,
  type RequestOptions,
  requireConnection,
  sessionRequestOptions,
} from "./feature-context.js";
import type { PromptCatalog } from "./prompts.js";
import type { SessionClients } from "./session-clients.js";

/** What is being completed: a prompt's argument, or a variable of a server's resource template. */
export type CompleteRef =
  | { readonly type: "prompt"; readonly name: string }
  | { readonly type: "resource"; readonly uriTemplate: string; readonly server: string };

export interface CompletionResult {
  readonly server: string;
  readonly values: readonly string[];
  readonly total?: number;
  readonly hasMore?: boolean;
}

/** Suggestions for `argument.value`, from the server that owns the prompt or template. */
export async function completeArgument(
  features: {
    readonly context: FeatureContext;
    readonly sessions: SessionClients;
    readonly prompts: PromptCatalog;
  },
  ref: CompleteRef,
  argument: { readonly name: string; readonly value: string },
  options: CompleteOptions,
): Promise<CompletionResult> {
  const { context, sessions, prompts } = features;
  assertOpen(context);
  const target =
    ref.type === "prompt"
      ? await prompts.lookup(ref.name, options).then((entry) => ({
          server: entry.server,
          wire: { type: "ref/prompt" as const, name: entry.prompt },
          item: `${entry.prompt}.${argument.name}`,
        }))
      : {
          server: ref.server,
          wire: { type: "ref/resource" as const, uri: ref.uriTemplate },
          item: `${ref.uriTemplate} {${argument.name}}`,
        };
  const connection = requireConnection(context, target.server);
  // A wire message: `context` is left out, not sent empty, when the caller gave none.
  const params = definedOnly({
    ref: target.wire,
    argument: { name: argument.name, value: argument.value },
    context: options.context ? { arguments: { ...options.context } } : undefined,
  }) as CompleteRequestParams;
  const result: CompleteResult = await sessions.request(
    connection,
    { method: "completion/complete", item: target.item },
    sessionRequestOptions(connection, options),
    (client, requestOptions) => client.complete(params, requestOptions),
  );
  const completion = result.completion ?? { values: [] };
  return definedOnly({
    server: connection.name,
    values: Array.isArray(completion.values) ? completion.values.filter((v) => typeof v === "string") : [],
    total: typeof completion.total === "number" ? completion.total : undefined,
    hasMore: typeof completion.hasMore === "boolean" ? completion.hasMore : undefined,
  }) as CompletionResult;
}

export interface CompleteOptions extends RequestOptions {
  /** Values of the other arguments already chosen (narrows the suggestions). */
  readonly context?: Readonly<Record<string, string>>;
}
