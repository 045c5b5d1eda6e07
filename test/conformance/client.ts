/**
 * The conformance suite's client under test: mcp-bridge's public API plus scenario glue only.
 * `conformance client --command "node dist/test/conformance/client.js" --scenario NAME` runs it with
 * the mock server's URL as the last argument and the scenario's data in MCP_CONFORMANCE_CONTEXT.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startBridge, type ToolEntry } from "../../src/index.js";

const url = process.argv.at(-1) ?? "";
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? "";
const rawContext = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? "{}") as Record<string, unknown>;
const context = rawContext as Record<string, string | undefined>;
/** Some scenarios name the exact calls to make (and their arguments). */
const scriptedCalls = Array.isArray(rawContext.toolCalls)
  ? (rawContext.toolCalls as { name: string; arguments?: Record<string, unknown> }[])
  : undefined;

/** Scenario data becomes ordinary `oauth` settings of the server entry, as a user would write them. */
function oauthSettings(): Record<string, unknown> | undefined {
  const oauth: Record<string, unknown> = {};
  if (context.client_id) oauth.clientId = context.client_id;
  if (context.client_secret) oauth.clientSecret = context.client_secret;
  if (context.private_key_pem) oauth.privateKeyPem = context.private_key_pem;
  if (context.signing_algorithm) oauth.signingAlgorithm = context.signing_algorithm;
  if (scenario.startsWith("auth/client-credentials")) oauth.grant = "client_credentials";
  if (context.valid_jwt) {
    oauth.grant = "jwt_bearer";
    oauth.assertion = context.valid_jwt;
  }
  if (context.idp_id_token && context.idp_client_id) {
    oauth.grant = "cross_app_access";
    oauth.idp = {
      idToken: context.idp_id_token,
      clientId: context.idp_client_id,
      ...(context.idp_token_endpoint ? { tokenEndpoint: context.idp_token_endpoint } : {}),
      ...(context.idp_issuer ? { issuer: context.idp_issuer } : {}),
    };
  }
  if (scenario.startsWith("auth/"))
    oauth.clientMetadataUrl = "https://conformance-test.local/client-metadata.json";
  return Object.keys(oauth).length > 0 ? oauth : undefined;
}

/**
 * Arguments from a tool's schema: defaults, else a plain value of the declared type. A `schema`
 * argument that asks for another tool's inputSchema gets it as the registry keeps it (the
 * json-schema-2020-12 scenario checks that nothing was stripped).
 */
function sampleArguments(
  schema: ToolEntry["inputSchema"],
  tools: readonly ToolEntry[],
): Record<string, unknown> {
  const properties = (schema.properties ?? {}) as Record<
    string,
    { type?: string; default?: unknown; enum?: unknown[]; description?: string }
  >;
  const args: Record<string, unknown> = {};
  for (const [name, property] of Object.entries(properties)) {
    const described = tools.find((tool) => property.description?.includes(tool.tool));
    if (name === "schema" && property.type === "object" && described) args[name] = described.inputSchema;
    else if (property.default !== undefined) args[name] = property.default;
    else if (property.enum?.length) args[name] = property.enum[0];
    else if (property.type === "number" || property.type === "integer") args[name] = 2;
    else if (property.type === "boolean") args[name] = true;
    else if (property.type === "array") args[name] = [];
    else if (property.type === "object") args[name] = {};
    else args[name] = "test";
  }
  return args;
}

const storageDir = mkdtempSync(join(tmpdir(), "mcp-bridge-conformance-"));
const log = (level: string) => (message: string) => process.stderr.write(`${level}: ${message}\n`);
let exitCode = 0;
try {
  const oauth = oauthSettings();
  await using bridge = await startBridge({
    servers: {
      test: {
        type: "http",
        url,
        restart: false,
        required: true,
        startupTimeout: "10s",
        ...(oauth ? { oauth } : {}),
      },
    },
    auth: { authorization: "headless", storageDir },
    logger: {
      debug: process.env.CONFORMANCE_DEBUG ? log("debug") : () => {},
      info: log("info"),
      warn: log("warn"),
      error: log("error"),
    },
    env: {},
    // The person in these scenarios accepts what a form proposes: the server's defaults (SEP-1034),
    // as a host's form would show them pre-filled. The library's own default declines.
    onElicitation: async (request) => ({
      action: "accept",
      content: schemaDefaults(request.requestedSchema),
    }),
  });
  // Skills are listed whenever the server offers them (listing reads no file); the verify scenarios
  // stand for a host that then loads one, which must refuse a SKILL.md that does not match its entry.
  const skills = await bridge.skills({ server: "test" });
  for (const skill of scenario.startsWith("sep-2640-client-verify") ? skills : []) {
    await bridge.loadSkill(skill.name, { server: "test" }).then(
      (loaded) => process.stdout.write(`skill ${loaded.name}: loaded ${loaded.files.length + 1} file(s)\n`),
      (error: unknown) => process.stdout.write(`skill ${skill.name}: ${(error as Error).message}\n`),
    );
  }
  if (scriptedCalls) {
    for (const call of scriptedCalls) {
      const result = await bridge.call(`test/${call.name}`, call.arguments ?? {}, { onError: "result" });
      process.stdout.write(`${call.name}: ${result.text.slice(0, 200)}\n`);
    }
  }
  for (const tool of scriptedCalls ? [] : bridge.tools()) {
    const result = await bridge.call(tool.name, sampleArguments(tool.inputSchema, bridge.tools()), {
      onError: "result",
    });
    process.stdout.write(`${tool.tool}: ${result.text.slice(0, 200)}\n`);
  }
} catch (error) {
  process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
  exitCode = 1;
} finally {
  rmSync(storageDir, { recursive: true, force: true });
}
process.exit(exitCode);

function schemaDefaults(schema: Record<string, unknown> | undefined): Record<string, unknown> {
  const properties = (schema?.properties ?? {}) as Record<string, { default?: unknown }>;
  const content: Record<string, unknown> = {};
  for (const [name, property] of Object.entries(properties)) {
    if (property?.default !== undefined) content[name] = property.default;
  }
  return content;
}
