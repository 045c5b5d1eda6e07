import type { AuthProvider, FetchLike, OAuthClientProvider, Transport } from "@modelcontextprotocol/client";
import { SdkError } from "@modelcontextprotocol/client";
import type { ServerDefinition } from "../config/model.js";
import { childEnvironment } from "./child-environment.js";
import { LogLevelEnvelope } from "./log-level-envelope.js";
import { type ExitInfo, type NoiseKind, ProcessTransport } from "./process-transport.js";
import { createSseTransport, createStreamableHttpTransport } from "./remote-transports.js";
import { sandboxedSpec } from "./sandbox/sandboxed-spawn.js";

/** One way of reaching a server; an inferred `url` has two (Streamable HTTP, then legacy SSE). */
export type TransportAttempt = "stdio" | "streamable-http" | "sse";

export interface TransportContext {
  readonly hostEnv?: Readonly<Record<string, string | undefined>>;
  readonly onStderrLine?: (line: string, complete: boolean) => void;
  readonly onNoise?: (kind: NoiseKind, sample: string) => void;
  readonly authProvider?: AuthProvider | OAuthClientProvider;
  readonly fetch?: FetchLike;
  /** Bytes kept of each string literal of an oversized stdio message. */
  readonly stringCapBytes?: number;
  /** Told the names of the host variables withheld from a stdio server because they look secret. */
  readonly onEnvironmentWithheld?: (names: readonly string[]) => void;
}

export function transportAttempts(definition: ServerDefinition): TransportAttempt[] {
  if (definition.transport === "stdio") return ["stdio"];
  if (definition.transport === "sse") return ["sse"];
  return definition.fallbackToSse ? ["streamable-http", "sse"] : ["streamable-http"];
}

/** The server process behind a stdio transport, as the connection sees it. */
export interface ServerProcess {
  /** The server's own pid, once spawned. */
  readonly pid: number | undefined;
  /** How the process ended, once it has. */
  readonly exitInfo: ExitInfo | undefined;
}

/** A transport plus what the connection may need of it, so no caller has to know its class. */
export interface CreatedTransport {
  readonly transport: Transport;
  /** Present for a transport that runs a local process. */
  readonly process?: ServerProcess;
  /** Completes an OAuth authorization the SDK started on this transport (remote transports only). */
  readonly finishAuth?: (callbackParams: URLSearchParams) => Promise<void>;
}

/** What `createTransport` is to a connection; tests pass another (e.g. the SDK's InMemoryTransport). */
export type TransportFactory = (
  definition: ServerDefinition,
  attempt: TransportAttempt,
  context: TransportContext,
) => CreatedTransport;

/** The one place that chooses a transport implementation. */
export function createTransport(
  definition: ServerDefinition,
  attempt: TransportAttempt,
  context: TransportContext = {},
): CreatedTransport {
  const created = createBareTransport(definition, attempt, context);
  if (definition.logLevel === undefined) return created;
  return { ...created, transport: new LogLevelEnvelope(created.transport, definition.logLevel) };
}

function createBareTransport(
  definition: ServerDefinition,
  attempt: TransportAttempt,
  context: TransportContext,
): CreatedTransport {
  if (definition.transport === "stdio") {
    const { sandbox, name } = definition;
    const hostEnv = context.hostEnv ?? process.env;
    const { env, withheld } = childEnvironment(definition.env, definition.inheritEnv, context.hostEnv);
    if (withheld.length > 0) context.onEnvironmentWithheld?.(withheld);
    const transport = new ProcessTransport({
      command: definition.command,
      args: definition.args,
      env,
      cwd: definition.cwd,
      maxMessageBytes: definition.maxMessageBytes,
      stringCapBytes: context.stringCapBytes,
      onStderrLine: context.onStderrLine,
      onNoise: context.onNoise,
      wrapSpawn: sandbox
        ? (spec) =>
            sandboxedSpec(spec, { server: name, policy: sandbox, configured: definition.env, hostEnv })
        : undefined,
    });
    return {
      transport,
      process: {
        get pid() {
          return transport.pid;
        },
        get exitInfo() {
          return transport.exitInfo;
        },
      },
    };
  }
  const remote = {
    url: definition.url,
    headers: definition.headers,
    ...(context.authProvider ? { authProvider: context.authProvider } : {}),
    ...(context.fetch ? { fetch: context.fetch } : {}),
  };
  const transport = attempt === "sse" ? createSseTransport(remote) : createStreamableHttpTransport(remote);
  return { transport, finishAuth: (params) => transport.finishAuth(params) };
}

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
