import type { CompleteResult } from "@modelcontextprotocol/client";
import { type RequestOptions, requireConnection, type SurfaceHost } from "./feature-context.js";
import type { PromptCatalog } from "./prompts.js";

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
  host: SurfaceHost,
  prompts: PromptCatalog,
  ref: CompleteRef,
  argument: { readonly name: string; readonly value: string },
  options: RequestOptions & { readonly context?: Readonly<Record<string, string>> },
): Promise<CompletionResult> {
  host.assertOpen();
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
  const connection = requireConnection(host, target.server);
  const result: CompleteResult = await host.sessions.request(
    connection,
    { method: "completion/complete", item: target.item },
    {
      timeoutMs: options.timeout ?? host.timeoutMs(connection),
      ...(options.signal ? { signal: options.signal } : {}),
    },
    (client, requestOptions) =>
      client.complete(
        {
          ref: target.wire,
          argument: { name: argument.name, value: argument.value },
          ...(options.context ? { context: { arguments: { ...options.context } } } : {}),
        },
        requestOptions,
      ),
  );
  const completion = result.completion ?? { values: [] };
  return {
    server: connection.name,
    values: Array.isArray(completion.values) ? completion.values.filter((v) => typeof v === "string") : [],
    ...(typeof completion.total === "number" ? { total: completion.total } : {}),
    ...(typeof completion.hasMore === "boolean" ? { hasMore: completion.hasMore } : {}),
  };
}
