import * as z from "zod";
import { LOG_LEVELS } from "./client-features.js";

/**
 * The raw shapes of a config file, for editors and `mcp-bridge config schema`. Validation itself is
 * done entry by entry in normalize.ts (so one bad entry is skipped, not the file); this schema
 * documents the same keys.
 */
const duration = z
  .union([z.number().nonnegative(), z.string().regex(/^(\d+(\.\d+)?\s*(ms|s|sec|m|min|h)?)+$/)])
  .describe('Seconds as a number, or a string such as "500ms", "30s", "2m"');
const stringMap = z.record(z.string(), z.string());
const patterns = z.array(z.string()).describe("Original tool names or * globs");
const logLevel = z.enum(LOG_LEVELS);
const roots = z.array(z.string()).describe("Folder paths or file: URIs");
const sampling = z.union([
  z.boolean(),
  z.object({ enabled: z.boolean().optional(), maxTokens: z.number().int().positive().optional() }),
]);

export const rawServerSchema = z
  .object({
    type: z.enum(["stdio", "sse", "http", "streamable-http", "streamableHttp", "streamable_http"]).optional(),
    transport: z
      .enum(["stdio", "sse", "http", "streamable-http", "streamableHttp", "streamable_http"])
      .optional(),
    command: z
      .union([z.string(), z.array(z.string())])
      .optional()
      .describe("Program to start (stdio); never run through a shell"),
    args: z.array(z.string()).optional(),
    env: stringMap.optional().describe("Environment added to a safe base (PATH, HOME, ...)"),
    cwd: z.string().optional(),
    inheritEnv: z
      .union([z.boolean(), z.array(z.string())])
      .optional()
      .describe("Host variables to pass through"),
    env_vars: z.array(z.string()).optional().describe("Codex: host variables to pass through"),
    url: z.string().optional().describe("Streamable HTTP or SSE endpoint; a url ending in /sse means SSE"),
    headers: stringMap.optional(),
    http_headers: stringMap.optional(),
    env_http_headers: stringMap.optional().describe("Codex: header name -> environment variable"),
    bearerToken: z.string().optional(),
    bearer_token_env_var: z.string().optional(),
    enabled: z.boolean().optional(),
    disabled: z.boolean().optional(),
    required: z.boolean().optional().describe("The host fails when this server cannot start"),
    timeout: duration.optional().describe("Call timeout (seconds when a number)"),
    callTimeout: duration.optional(),
    tool_timeout_sec: z.number().optional(),
    startupTimeout: duration.optional(),
    startup_timeout_sec: z.number().optional(),
    startup_timeout_ms: z.number().optional(),
    tools: z.object({ include: patterns.optional(), exclude: patterns.optional() }).optional(),
    includeTools: patterns.optional(),
    excludeTools: patterns.optional(),
    enabled_tools: patterns.optional(),
    disabled_tools: patterns.optional(),
    maxResultChars: z.number().int().positive().optional(),
    lazy: z.boolean().optional().describe("Connect on first use"),
    idleTimeout: duration.optional().describe("Close after this long unused; reopen on the next call"),
    maxConcurrency: z.number().int().positive().optional(),
    restart: z
      .union([
        z.boolean(),
        z.object({
          enabled: z.boolean().optional(),
          maxAttempts: z.number().int().nonnegative().optional(),
          initialDelay: duration.optional(),
          maxDelay: duration.optional(),
          stablePeriod: duration
            .optional()
            .describe(
              "A restart counts as recovered only after the server stayed up this long (default 10 s)",
            ),
        }),
      ])
      .optional(),
    healthCheckInterval: duration.optional(),
    negotiation: z.union([z.enum(["legacy", "auto"]), z.string().regex(/^\d{4}-\d{2}-\d{2}$/)]).optional(),
    maxMessageBytes: z.number().int().positive().optional(),
    logLevel: logLevel.optional().describe("logging/setLevel sent after connecting"),
    roots: roots.optional().describe("Folders shown to this server as roots (default: the global roots)"),
    sampling: sampling
      .optional()
      .describe("Allow this server to sample (ask the host's LLM); default not allowed"),
    oauth: z
      .object({
        clientId: z.string().optional(),
        clientSecret: z.string().optional(),
        clientMetadataUrl: z.string().optional(),
        scopes: z.union([z.string(), z.array(z.string())]).optional(),
        grant: z
          .enum(["authorization_code", "client_credentials", "cross_app_access", "jwt_bearer"])
          .optional(),
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
      })
      .optional(),
  })
  .describe("One MCP server");

export const settingsSchema = z.object({
  enabled: z.boolean().optional(),
  toolNameFormat: z.string().optional().describe('Default "mcp_{server}_{tool}"'),
  descriptionPrefix: z
    .union([z.string(), z.literal(false)])
    .optional()
    .describe('Default "[MCP:{server}] "'),
  maxResultChars: z.number().int().positive().optional().describe("Default 5000"),
  startupTimeout: duration.optional().describe("Default 30s"),
  callTimeout: duration.optional().describe("Default 60s"),
  healthCheckInterval: duration.optional().describe("Remote servers; default 30s"),
  autoReload: z.boolean().optional(),
  imports: z.array(z.enum(["claude-code", "claude-desktop", "cursor", "vscode", "codex"])).optional(),
  roots: roots
    .optional()
    .describe("Folders shown to every server as roots; default: the config file's folder"),
  sampling: sampling.optional().describe("Global sampling switch and default maxTokens cap"),
  resourceTools: z.boolean().optional().describe("Give the model list_resources / read_resource tools"),
});

export const configFileSchema = z
  .object({
    $schema: z.string().optional(),
    mcpServers: z
      .record(z.string(), rawServerSchema)
      .optional()
      .describe("Claude Desktop / Cursor / .mcp.json shape"),
    servers: z.record(z.string(), rawServerSchema).optional().describe("VS Code shape"),
    settings: settingsSchema.optional(),
  })
  .describe(
    "mcp-bridge configuration (JSON); TOML files use the same keys under [mcp.servers], [[mcp.servers]] or [mcp_servers]",
  );

export function configJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(configFileSchema, { target: "draft-2020-12", io: "input" }) as Record<
    string,
    unknown
  >;
}
