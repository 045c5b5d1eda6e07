import { existsSync, readFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import * as adapters from "../src/adapters/index.js";
import * as agent from "../src/apps/agent/index.js";
import * as gateway from "../src/apps/gateway/index.js";
import * as codeMode from "../src/codemode/index.js";
import * as main from "../src/index.js";
import { entryPoints, type PublicApi, readPublicApi } from "./helpers/public-api.js";

/**
 * Every name each entry point exports, values and types. A change to these lists changes the public
 * API: make it deliberately (and say so in CHANGELOG.md), never as a side effect of an import.
 */
const PUBLIC_EXPORTS: Record<string, readonly string[]> = {
  // What a host needs: start servers, hand their tools to a model, run the model's calls.
  ".": [
    // the bridge and what its methods take and give
    "Bridge",
    "BridgeEventMap",
    "BridgeOptions",
    "BridgeStats",
    "CallOptions",
    // CallOptions.upstream: a call over the caller's own connection (the gateway's per-caller mode)
    "CallUpstream",
    "UpstreamCallOptions",
    // the call policy's `ask`, answered by the host (BridgeOptions.approveCall)
    "ApproveCall",
    "CallApprovalRequest",
    // who answered an approval and how; the caller's client as a way to ask (CallOptions.approvalClient)
    "ApprovalAnswer",
    "ApprovalChannel",
    "ApprovalClient",
    "CompleteOptions",
    "CompleteRef",
    "CompletionResult",
    "FlatParameters",
    "GetPromptOptions",
    "LoadSkillOptions",
    "LoadedSkill",
    "McpBridge",
    "PinDrift",
    "PinDriftEvent",
    "PinReport",
    "Progress",
    "PromptEntry",
    "PromptMessages",
    "ReadResourceOptions",
    "ReloadSummary",
    "RequestOptions",
    "ResourceContent",
    "ResourceEntry",
    "ResourceTemplateEntry",
    "ResourceUpdate",
    "ServerLogMessage",
    "ServerState",
    "ServerStatus",
    "SkillEntry",
    "ToolDefinition",
    "ToolEntry",
    "ToolResult",
    "ToolSearchOptions",
    "ToolsChangedEvent",
    "startBridge",
    // servers given in code: `connect` and the in-memory helper
    "ConnectServer",
    "inMemoryServer",
    // the handlers and options a host writes for BridgeOptions
    "AuthOptions",
    "ElicitationHandler",
    "ElicitationRequest",
    "ElicitationResponse",
    "InputRequest",
    "Logger",
    "ProjectServerRequest",
    "SamplingContext",
    "SamplingHandler",
    // reading the config without starting anything
    "LoadConfigOptions",
    "ResolvedConfig",
    "ServerDefinition",
    "loadConfig",
    // errors: the base class, its codes, and the subclasses that carry fields
    "ConfigError",
    "ErrorCode",
    "InvalidArgumentsError",
    "McpBridgeError",
    "McpBridgeErrorFields",
    "ServerConnectionError",
    "ServerRequestError",
    "SkillVerificationError",
    "ToolChangedError",
    "ToolExecutionError",
    "ToolTimeoutError",
    "isMcpBridgeError",
    // the vendors' tool formats and running a model's tool calls
    "AnthropicTool",
    "AnthropicToolResultBlock",
    "ExecuteOptions",
    "GeminiFunctionDeclaration",
    "OpenAITool",
    "OpenAIToolCall",
    "OpenAIToolMessage",
    "OpenAIToolOptions",
    "executeAnthropicToolUses",
    "executeOpenAIToolCalls",
    "executeToolCalls",
    "toAnthropicTools",
    "toGeminiTools",
    "toOpenAITools",
  ],
  // Secondary adapters: tool-search meta-tools, deferred-loading vendor formats, strict schemas, sampling.
  "./adapters": [
    "AnthropicDeferredOptions",
    "AnthropicDeferredTool",
    "AnthropicToolSearchTool",
    "CatalogCaller",
    "CatalogOptions",
    "DeferredOptions",
    "OpenAISamplingOptions",
    "ResponsesFunctionTool",
    "ResponsesNamespace",
    "StrictSchema",
    "ToolCatalog",
    "ToolCatalogSource",
    "catalogCaller",
    "catalogTools",
    "definitionTokens",
    "fromChatCompletion",
    "fromOpenAIStrictArguments",
    "openAISamplingHandler",
    "toAnthropicDeferredTools",
    "toChatCompletionRequest",
    "toOpenAIResponsesDeferredTools",
    "toStrictSchema",
    "toolCatalog",
  ],
  // The Vercel AI SDK's tools; apart so that hosts without `ai` never load it.
  "./ai-sdk": ["AiSdkToolOptions", "toAiSdkTools"],
  // The agent loop and its providers.
  "./agent": [
    "Agent",
    "AgentEvent",
    "AgentMessage",
    "AgentOptions",
    "AgentToolCall",
    "ApproveToolCall",
    "ModelEvent",
    "ModelProvider",
    "ModelRequest",
    "ProviderChoice",
    "ProviderOptions",
    "TokenUsage",
    "TurnResult",
    "chooseProvider",
    "createAnthropicProvider",
    "createOpenAIProvider",
    "providerFromEnvironment",
  ],
  // What a program needs to serve a bridge: the gateway over HTTP or stdio and the options it writes.
  "./gateway": [
    "Gateway",
    "GatewayLimits",
    "GatewayOAuth",
    "GatewayOptions",
    "GatewayProfile",
    "GatewayToken",
    "RequestForwarder",
    "RequestForwarderOptions",
    "ServeGatewayOptions",
    "ServedGateway",
    "StateKeys",
    "StdioGatewayOptions",
    "StdioWireOptions",
    "readStateKeys",
    "serveGateway",
    "serveGatewayStdio",
    "startGateway",
  ],
  // Code mode: the meta-tools, a program run in the QuickJS sandbox, the typed API and its limits.
  "./code-mode": [
    "ApiTool",
    "CODE_MODE_LIMITS",
    "CodeExecution",
    "CodeLimitError",
    "CodeLimitKind",
    "CodeModeApi",
    "CodeModeLimits",
    "CodeModeOptions",
    "CodeModeSource",
    "ExecuteCodeOptions",
    "codeModeApi",
    "codeModeBridge",
    "codeModeTools",
    "executeCode",
    "schemaToType",
  ],
};

let api: PublicApi;
beforeAll(() => {
  api = readPublicApi();
}, 120_000);

describe("public surface", () => {
  it("package.json exports exactly the listed entry points, each from a source module that exists", () => {
    const pkg = JSON.parse(readFileSync("package.json", "utf8")) as {
      exports: Record<string, string | { types: string; import: string }>;
    };
    expect(Object.keys(pkg.exports).sort()).toEqual(
      [...Object.keys(PUBLIC_EXPORTS), "./package.json"].sort(),
    );
    for (const target of Object.values(pkg.exports)) {
      if (typeof target === "string") continue;
      const source = target.import.replace("./dist/", "").replace(/\.js$/, ".ts");
      expect(existsSync(source), source).toBe(true);
      expect(target.types).toBe(target.import.replace(/\.js$/, ".d.ts"));
    }
    expect([...entryPoints().keys()].sort()).toEqual(Object.keys(PUBLIC_EXPORTS).sort());
  });

  it("each entry point exports exactly the listed names, types included", () => {
    for (const [subpath, names] of Object.entries(PUBLIC_EXPORTS)) {
      expect(api.names.get(subpath), subpath).toEqual([...names].sort());
    }
    // The runtime values are listed names that are not types only.
    const modules = {
      ".": main,
      "./adapters": adapters,
      "./agent": agent,
      "./gateway": gateway,
      "./code-mode": codeMode,
    };
    for (const [subpath, module] of Object.entries(modules)) {
      for (const name of Object.keys(module)) expect(PUBLIC_EXPORTS[subpath], subpath).toContain(name);
    }
  });

  it("exports each name from one entry point only", () => {
    const owners = new Map<string, string>();
    for (const [subpath, names] of api.names) {
      for (const name of names) {
        expect(owners.get(name), `${name} is exported by ${owners.get(name)} and ${subpath}`).toBeUndefined();
        owners.set(name, subpath);
      }
    }
  });

  it("a user can name every type an exported function, method or callback takes or returns", () => {
    // e.g. `ToolEntry.flatParameters()` returns FlatParameters: a host must be able to write that type.
    expect(api.unnameable).toEqual([]);
  });

  it("keeps the secondary adapters and the building blocks out of the main entry", () => {
    for (const name of [
      "toolCatalog",
      "toAnthropicDeferredTools",
      "openAISamplingHandler",
      "toStrictSchema",
    ]) {
      expect(main).not.toHaveProperty(name);
      expect(adapters).toHaveProperty(name);
    }
    for (const name of ["ToolRegistry", "truncateText", "parseDuration", "redactText", "validateArguments"]) {
      expect(main).not.toHaveProperty(name);
    }
    for (const name of ["requestTracker", "FORWARD_TIMEOUT_MS"]) expect(gateway).not.toHaveProperty(name);
    for (const name of ["readSse", "SseParser", "DEFAULT_MAX_STEPS"]) expect(agent).not.toHaveProperty(name);
  });
});
