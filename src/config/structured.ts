import * as z from "zod";
import { LOG_LEVELS } from "./client-features.js";
import { DEFAULT_RESTART_POLICY } from "./defaults.js";

/** The restart defaults as the docs show them, read from the defaults table. */
const restart = DEFAULT_RESTART_POLICY;

export const durationSchema = () =>
  z
    .union([z.number().nonnegative(), z.string().regex(/^(\d+(\.\d+)?\s*(ms|s|sec|m|min|h)?)+$/)])
    .describe('Seconds as a number, or a string such as "500ms", "30s", "2m"');

export interface StructuredKey {
  readonly keys: readonly string[];
  readonly schema: () => z.ZodType;
  readonly doc: string;
}

const stringMap = () => z.record(z.string(), z.string());
const patterns = () => z.array(z.string()).describe("Original tool names or * globs");
const transportNames = [
  "stdio",
  "sse",
  "http",
  "streamable-http",
  "streamableHttp",
  "streamable_http",
] as const;

/**
 * The client side of MCP (what a server may ask of us), read by `parseClientFeatures`; `roots` and
 * `sampling` are global settings too.
 */
export const CLIENT_FEATURES = {
  logLevel: {
    keys: ["logLevel", "log_level"],
    schema: () => z.enum(LOG_LEVELS),
    doc: "`logging/setLevel` sent after connecting; the server's log messages go to the host's logger",
  },
  roots: {
    keys: ["roots"],
    schema: () => z.array(z.string()).describe("Folder paths or file: URIs"),
    doc: "folders shown to the server as roots (default: the global `roots`, else none, so a server such as server-filesystem keeps the folders in its `args`)",
  },
  sampling: {
    keys: ["sampling"],
    schema: () =>
      z.union([
        z.boolean(),
        z.object({ enabled: z.boolean().optional(), maxTokens: z.number().int().positive().optional() }),
      ]),
    doc: "`true` or `{ enabled, maxTokens }`: the server may ask the host's LLM for completions (default: not allowed)",
  },
} satisfies Record<string, StructuredKey>;

/**
 * Server keys with structure, read by the named functions of normalize-entry.ts and oauth-settings.ts. Listed here so
 * they are accepted, published in the schema and documented from the same place as scalar keys.
 */
export const STRUCTURED = {
  transport: {
    keys: ["type", "transport"],
    schema: () => z.enum(transportNames),
    doc: "`stdio`, `http` (also `streamable-http`), `sse`; when omitted: `command` means stdio, `url` means Streamable HTTP with SSE fallback, a `url` ending in `/sse` means SSE",
  },
  command: {
    keys: ["command"],
    schema: () =>
      z
        .union([z.string(), z.array(z.string())])
        .describe("Program to start (stdio); never run through a shell"),
    doc: "the program (a string, or a list: program then arguments); never run through a shell",
  },
  args: { keys: ["args"], schema: () => z.array(z.string()), doc: "its arguments" },
  env: {
    keys: ["env"],
    schema: () => stringMap().describe("Environment added to a safe base (PATH, HOME, ...)"),
    doc: "variables added to a safe base environment (PATH, HOME, ...), not the host's whole environment",
  },
  envFile: {
    keys: ["envFile", "env_file"],
    schema: () => z.string().describe("A .env file (KEY=value lines) whose variables are added; env wins"),
    doc: "a `.env` file (`KEY=value` lines, relative to the config file) read into `env`; `env` wins on a clash",
  },
  cwd: { keys: ["cwd"], schema: () => z.string(), doc: "working directory, relative to the config file" },
  inheritEnv: {
    keys: ["inheritEnv", "inherit_env", "env_vars"],
    schema: () => z.union([z.boolean(), z.array(z.string())]).describe("Host variables to pass through"),
    doc: "host variables to pass through (`true`: all whose names do not look secret, see docs/security.md); Codex `env_vars`",
  },
  sandbox: {
    keys: ["sandbox"],
    schema: () =>
      z
        .union([
          z.boolean(),
          z.object({
            read: z.array(z.string()).optional().describe("Paths the server may read"),
            write: z.array(z.string()).optional().describe("Paths the server may read and write"),
            network: z
              .union([z.boolean(), z.array(z.string())])
              .optional()
              .describe(
                'true: the host\'s network; a list of hosts ("*.npmjs.org" for names below it): those only, through a proxy (default false: none)',
              ),
            env: z.array(z.string()).optional().describe("Host environment variables passed in"),
          }),
        ])
        .describe("stdio: run the server in a sandbox (bubblewrap on Linux); see docs/security.md"),
    doc: "stdio: `true` or `{ read, write, network, env }` runs the server in a sandbox (bubblewrap on Linux, `sandbox-exec` on macOS, refused on Windows): system folders read-only, a private `/tmp` and `HOME`, no network (or, with `network` a list of hosts, those only, through a proxy), only the base environment, plus these grants (see docs/security.md)",
  },
  limits: {
    keys: ["limits"],
    schema: () =>
      z
        .object({
          memoryMb: z.number().int().positive().optional().describe("Heap and private memory, MiB"),
          pids: z.number().int().positive().optional().describe("Processes and threads (needs sandbox)"),
          cpuSeconds: z.number().int().positive().optional().describe("CPU time, seconds"),
        })
        .describe("stdio, Linux: resource limits the kernel enforces (rlimits); see docs/security.md"),
    doc: "stdio, Linux: `{ memoryMb, pids, cpuSeconds }` resource limits the kernel enforces (rlimits set by util-linux `prlimit`): `memoryMb` caps the heap and private memory (RLIMIT_DATA), `pids` the processes and threads (RLIMIT_NPROC; needs `sandbox`, and the kernel does not apply it to root), `cpuSeconds` the CPU time (RLIMIT_CPU); a server stopped by one says which (see docs/security.md)",
  },
  url: {
    keys: ["url"],
    schema: () => z.string().describe("Streamable HTTP or SSE endpoint; a url ending in /sse means SSE"),
    doc: "the endpoint of a remote server",
  },
  headers: {
    keys: ["headers", "http_headers"],
    schema: stringMap,
    doc: "HTTP headers (Codex `http_headers`)",
  },
  envHeaders: {
    keys: ["env_http_headers"],
    schema: () => stringMap().describe("Codex: header name -> environment variable"),
    doc: "Codex: header name to the environment variable holding its value",
  },
  bearer: {
    keys: ["bearerToken", "bearer_token"],
    schema: z.string,
    doc: "sent as `Authorization: Bearer <token>`",
  },
  bearerEnv: {
    keys: ["bearer_token_env_var"],
    schema: z.string,
    doc: "Codex: the environment variable holding the bearer token",
  },
  tools: {
    keys: ["tools"],
    schema: () => z.object({ include: patterns().optional(), exclude: patterns().optional() }),
    doc: "`{ include, exclude }`: original tool names or `*` globs; only included tools are exposed (all when empty), excluded never",
  },
  include: {
    keys: ["include", "includeTools", "include_tools", "enabled_tools"],
    schema: patterns,
    doc: "more tools to include, outside `tools` (Codex `enabled_tools`); every list given is combined",
  },
  exclude: {
    keys: ["exclude", "excludeTools", "exclude_tools", "disabled_tools"],
    schema: patterns,
    doc: "more tools to exclude, outside `tools` (Codex `disabled_tools`); every list given is combined",
  },
  restart: {
    keys: ["restart"],
    schema: () =>
      z.union([
        z.boolean(),
        z.object({
          enabled: z.boolean().optional(),
          maxAttempts: z.number().int().nonnegative().optional(),
          initialDelay: durationSchema().optional(),
          maxDelay: durationSchema().optional(),
          stablePeriod: durationSchema()
            .optional()
            .describe(
              "A restart counts as recovered only after the server stayed up this long (default 10 s)",
            ),
          retryCeiling: durationSchema()
            .optional()
            .describe(
              "An unreachable remote server is retried in the background until close, at least this often (default 5 min)",
            ),
        }),
      ]),
    doc: `\`{ enabled, maxAttempts, initialDelay, maxDelay, stablePeriod, retryCeiling }\`: reconnect with exponential backoff and jitter (default on, ${restart.maxAttempts} attempts, ${restart.initialDelayMs} ms to ${restart.maxDelayMs / 1000} s); a restart counts as recovered only after staying up \`stablePeriod\` (${restart.stablePeriodMs / 1000} s), so a server that dies after every handshake ends \`failed\`; a remote server that stays unreachable (or was down at start) is then retried in the background until the bridge closes, the wait doubling up to \`retryCeiling\` (${restart.retryCeilingMs / 60_000} min), and a call to it retries at once, by \`server/tool\` or by the exposed name of a tool it listed before it went down (through the gateway too, where a call for a tool of a down server that was connected before retries it before answering that it is down); \`false\` turns it off`,
  },
  tags: {
    keys: ["tags"],
    schema: () => z.array(z.string().min(1)).describe("Free labels, such as team or purpose"),
    doc: "free labels for this server (a list of strings); `--tag` selects the servers with any of the given labels in `tools`, `status` and `serve`",
  },
  oauth: { keys: ["oauth"], schema: () => oauthSchema(), doc: "OAuth client settings (see OAuth below)" },
  origin: {
    keys: ["origin"],
    schema: () => originSchema(),
    doc: "written by `mcp-bridge add REGISTRY-NAME`: the registry, name and exact version the server came from, and its package pinned with its integrity, checked before every start (docs/registry.md)",
  },
  ...CLIENT_FEATURES,
} as const satisfies Record<string, StructuredKey>;

/** An installed server's origin: what `add` recorded, what every start and the managed policy check. */
export function originSchema() {
  return z.object({
    registry: z.string(),
    name: z.string(),
    version: z.string(),
    package: z
      .object({
        type: z.string(),
        identifier: z.string(),
        version: z.string(),
        registryBaseUrl: z.string().optional(),
        integrity: z
          .string()
          .regex(/^sha512-[A-Za-z0-9+/]{86}==$/)
          .optional(),
        tarball: z.string().optional(),
        digest: z
          .string()
          .regex(/^sha256:[a-f0-9]{64}$/)
          .optional(),
      })
      .optional(),
  });
}

function oauthSchema(): z.ZodType {
  return z.object({
    clientId: z.string().optional(),
    clientSecret: z.string().optional(),
    clientMetadataUrl: z.string().optional(),
    scopes: z.union([z.string(), z.array(z.string())]).optional(),
    grant: z.enum(["authorization_code", "client_credentials", "cross_app_access", "jwt_bearer"]).optional(),
    assertion: z.string().optional().describe("jwt_bearer: the workload's JWT (use ${VAR})"),
    issuer: z
      .string()
      .optional()
      .describe("The authorization server's issuer: credentials are only sent there"),
    idp: z
      .object({
        tokenEndpoint: z.string().optional(),
        issuer: z.string().optional(),
        idToken: z.string(),
        clientId: z.string(),
        clientSecret: z.string().optional(),
      })
      .optional()
      .describe("Enterprise-managed authorization (SEP-990): the identity provider issuing the ID-JAG"),
    tokenEndpointAuthMethod: z
      .enum(["client_secret_basic", "client_secret_post", "private_key_jwt", "none"])
      .optional(),
    privateKeyPem: z.string().optional(),
    signingAlgorithm: z.string().optional(),
    redirectPort: z.number().int().optional(),
    perCaller: z
      .boolean()
      .optional()
      .describe("serve: each authenticated gateway client gets its own tokens, with its consent"),
  });
}
