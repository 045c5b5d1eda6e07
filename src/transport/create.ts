import type { AuthProvider, FetchLike, OAuthClientProvider, Transport } from "@modelcontextprotocol/client";
import type { InProcessServerDefinition, ServerDefinition, StdioServerDefinition } from "../config/model.js";
import { notATransport } from "../errors/index.js";
import { childEnvironment } from "./child-environment.js";
import { LogLevelEnvelope } from "./log-level-envelope.js";
import { type ExitInfo, type NoiseKind, ProcessTransport } from "./process-transport.js";
import type * as RemoteTransports from "./remote-transports.js";
import { findPrlimit, limitedSpec } from "./sandbox/resource-limits.js";
import { type SandboxTracer, sandboxedSpec } from "./sandbox/sandboxed-spawn.js";
import type { SpawnSpec } from "./spawn-server.js";
import type { TransportAttempt } from "./transport-kinds.js";

// Where they were first: the connection imports them from transport-kinds.ts, so that this file (and
// every transport implementation behind it) loads only when a server is first connected.
export {
  httpStatusOf,
  looksLikeLegacySseServer,
  type TransportAttempt,
  transportAttempts,
} from "./transport-kinds.js";

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
  /** Told that a configured limit cannot be enforced for this server (see wrapSpawnOf). */
  readonly onLimitNotEnforced?: (limit: "pids", reason: "root") => void;
  /** A tracer run in front of a sandboxed server (`sandbox learn` only; see sandbox/learn-run.ts). */
  readonly tracer?: SandboxTracer;
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

/**
 * What `createTransport` is to a connection; tests pass another (e.g. the SDK's InMemoryTransport).
 * A promise only for a server given in code, whose `connect` may open its transport asynchronously.
 */
export type TransportFactory = (
  definition: ServerDefinition,
  attempt: TransportAttempt,
  context: TransportContext,
) => CreatedTransport | Promise<CreatedTransport>;

let remoteTransports: typeof RemoteTransports | undefined;

/**
 * `createTransport`, with what `definition` needs of it loaded: the Streamable HTTP and SSE clients
 * (and through them web `Response`, that is Node's whole fetch implementation, about 1 MiB of heap)
 * only for a remote server, so a host of stdio servers never loads them.
 */
export async function transportFor(definition: ServerDefinition): Promise<TransportFactory> {
  if (definition.transport === "http" || definition.transport === "sse")
    remoteTransports ??= await import("./remote-transports.js");
  return createTransport;
}

/** The one place that chooses a transport implementation (a remote one once `transportFor` loaded it). */
export function createTransport(
  definition: ServerDefinition,
  attempt: TransportAttempt,
  context: TransportContext = {},
): CreatedTransport | Promise<CreatedTransport> {
  if (definition.transport === "in-process")
    return inProcessTransport(definition).then((created) => withLogLevel(definition, created));
  return withLogLevel(definition, createBareTransport(definition, attempt, context));
}

function withLogLevel(definition: ServerDefinition, created: CreatedTransport): CreatedTransport {
  if (definition.logLevel === undefined) return created;
  return { ...created, transport: new LogLevelEnvelope(created.transport, definition.logLevel) };
}

/** A new transport from the host's `connect` (a new one per attempt: a closed transport cannot restart). */
async function inProcessTransport(definition: InProcessServerDefinition): Promise<CreatedTransport> {
  const transport: unknown = await definition.connect();
  if (!isTransport(transport)) {
    const got = transport === null ? "null" : Array.isArray(transport) ? "an array" : typeof transport;
    throw notATransport({ server: definition.name, got });
  }
  return { transport };
}

function isTransport(value: unknown): value is Transport {
  if (typeof value !== "object" || value === null) return false;
  const candidate = value as Partial<Record<keyof Transport, unknown>>;
  return (
    typeof candidate.start === "function" &&
    typeof candidate.send === "function" &&
    typeof candidate.close === "function"
  );
}

function createBareTransport(
  definition: Exclude<ServerDefinition, InProcessServerDefinition>,
  attempt: TransportAttempt,
  context: TransportContext,
): CreatedTransport {
  if (definition.transport === "stdio") {
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
      wrapSpawn: wrapSpawnOf(definition, hostEnv, context),
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
  // transportFor() loaded them before any remote definition gets here.
  const { createSseTransport, createStreamableHttpTransport } = remoteTransports as typeof RemoteTransports;
  const transport = attempt === "sse" ? createSseTransport(remote) : createStreamableHttpTransport(remote);
  return { transport, finishAuth: (params) => transport.finishAuth(params) };
}

/**
 * What rewrites a stdio server's spawn: the verified local copy of a registry-installed npm package in
 * place of its name (verified-package.ts), then its sandbox (with its limits inside), else its limits
 * alone. The kernel never applies RLIMIT_NPROC to root's processes, even in a user namespace: said, not
 * hidden.
 */
function wrapSpawnOf(
  definition: StdioServerDefinition,
  hostEnv: Readonly<Record<string, string | undefined>>,
  context: TransportContext,
): ((spec: SpawnSpec) => Promise<SpawnSpec>) | undefined {
  const { sandbox, limits, name: server, origin } = definition;
  if (limits?.pids !== undefined && process.getuid?.() === 0) context.onLimitNotEnforced?.("pids", "root");
  const verify = origin?.package?.integrity !== undefined;
  if (!sandbox && !limits && !verify) return undefined;
  return async (spec) => {
    // Loaded only for a registry-installed package: it brings the HTTP client a stdio bridge needs not.
    const verified =
      verify && origin
        ? await (await import("./verified-package.js")).verifiedNpmSpec(server, origin, spec, hostEnv)
        : spec;
    if (sandbox)
      return sandboxedSpec(
        verified,
        { server, policy: sandbox, configured: definition.env, hostEnv, limits },
        context.tracer,
      );
    return limits ? limitedSpec(verified, findPrlimit(server, hostEnv.PATH), limits) : verified;
  };
}
