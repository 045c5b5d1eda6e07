import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import * as main from "../src/index.js";
import * as internals from "../src/internals.js";

/**
 * Every name the main entry exports, values and types. A change to this list changes the public API:
 * make it deliberately (and say so in the changelog), never as a side effect of an import.
 */
const PUBLIC_EXPORTS = [
  "AbortError",
  "AdmitProjectServer",
  "AnthropicDeferredOptions",
  "AnthropicDeferredTool",
  "AnthropicTool",
  "AnthropicToolResultBlock",
  "AnthropicToolSearchTool",
  "AnthropicToolUse",
  "AuthOptions",
  "Bridge",
  "BridgeEventMap",
  "BridgeOptions",
  "BridgeSettings",
  "BridgeStats",
  "CallOptions",
  "CatalogCaller",
  "CatalogOptions",
  "CompleteOptions",
  "CompleteRef",
  "CompletionResult",
  "ConfigError",
  "ConfigFormat",
  "ConfigSource",
  "ConfigWarning",
  "DeferredOptions",
  "ElicitationHandler",
  "ElicitationRequest",
  "ElicitationResponse",
  "ErrorCode",
  "ExecuteOptions",
  "FlatParameter",
  "FlatParameterType",
  "FlatParameters",
  "GeminiFunctionDeclaration",
  "GeminiSchema",
  "GeminiType",
  "GetPromptOptions",
  "ImportSourceName",
  "InputRequest",
  "InvalidArgumentsError",
  "JsonSchema",
  "LatencyStats",
  "LoadConfigOptions",
  "LoadSkillOptions",
  "LoadedSkill",
  "LogFields",
  "LogLevel",
  "Logger",
  "McpBridge",
  "McpBridgeError",
  "MeterProviderLike",
  "OpenAISamplingOptions",
  "OpenAITool",
  "OpenAIToolCall",
  "OpenAIToolMessage",
  "OpenAIToolOptions",
  "Progress",
  "ProjectServerRequest",
  "PromptEntry",
  "PromptMessageEntry",
  "PromptMessages",
  "RawServers",
  "ReadResourceOptions",
  "ReloadSummary",
  "RemoteServerDefinition",
  "RequestOptions",
  "ResolveInput",
  "ResolvedConfig",
  "ResourceContent",
  "ResourceEntry",
  "ResourcePart",
  "ResourceTemplateEntry",
  "ResourceUpdate",
  "ResponsesFunctionTool",
  "ResponsesNamespace",
  "RestartPolicy",
  "ResultOptions",
  "SamplingContext",
  "SamplingHandler",
  "SamplingPolicy",
  "SamplingRequest",
  "SamplingResult",
  "SearchPath",
  "ServerConnectionError",
  "ServerCrashedError",
  "ServerDefinition",
  "ServerInfo",
  "ServerLogLevel",
  "ServerLogMessage",
  "ServerRequestError",
  "ServerState",
  "ServerStatus",
  "SkillEntry",
  "SkillFile",
  "SkillFileEntry",
  "SkillVerificationError",
  "SkippedServer",
  "StdioServerDefinition",
  "StrictSchema",
  "SurfaceMethods",
  "TOOL_NAME_PATTERN",
  "TelemetryOptions",
  "TelemetrySetting",
  "ToolCatalog",
  "ToolCatalogSource",
  "ToolDefinition",
  "ToolEntry",
  "ToolExecutionError",
  "ToolFilter",
  "ToolFilterCallback",
  "ToolNotFoundError",
  "ToolResult",
  "ToolSearchOptions",
  "ToolTimeoutError",
  "ToolsChangedEvent",
  "TracerProviderLike",
  "TransportKind",
  "catalogCaller",
  "catalogTools",
  "configSearchPaths",
  "definitionTokens",
  "executeAnthropicToolUses",
  "executeOpenAIToolCalls",
  "executeToolCalls",
  "fromChatCompletion",
  "fromOpenAIStrictArguments",
  "isMcpBridgeError",
  "loadConfig",
  "openAISamplingHandler",
  "silentLogger",
  "startBridge",
  "toAnthropicDeferredTools",
  "toAnthropicTools",
  "toChatCompletionRequest",
  "toGeminiTools",
  "toOpenAIResponsesDeferredTools",
  "toOpenAITools",
  "toStrictSchema",
  "toolCatalog",
];

/** Names of every export of a module, types included, as the compiler sees them. */
function exportedNames(file: string): string[] {
  const program = ts.createProgram([file], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    noEmit: true,
    skipLibCheck: true,
  });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file);
  const symbol = source && checker.getSymbolAtLocation(source);
  if (!symbol) throw new Error(`cannot read the exports of ${file}`);
  return checker
    .getExportsOfModule(symbol)
    .map((s) => s.name)
    .sort();
}

describe("public surface", () => {
  it("the main entry exports exactly the listed names, types included", () => {
    expect(exportedNames(join(process.cwd(), "src/index.ts"))).toEqual([...PUBLIC_EXPORTS].sort());
    // The runtime values are the listed ones that are not types only.
    for (const name of Object.keys(main)) expect(PUBLIC_EXPORTS).toContain(name);
  }, 60_000);

  it("keeps building blocks out of the main entry and in mcp-bridge/internals", () => {
    const moved = [
      "ToolRegistry",
      "CallStats",
      "truncateText",
      "parseDuration",
      "redactText",
      "redactUrl",
      "redactConfig",
      "normalizeServerPart",
      "normalizeToolPart",
      "validateArguments",
    ];
    for (const name of moved) {
      expect(main).not.toHaveProperty(name);
      expect(internals).toHaveProperty(name);
    }
  });

  it("maps every package subpath to a source module that exists", () => {
    const pkg = JSON.parse(readFileSync("package.json", "utf8")) as {
      exports: Record<string, string | { types: string; import: string }>;
    };
    expect(Object.keys(pkg.exports).sort()).toEqual([
      ".",
      "./agent",
      "./ai-sdk",
      "./gateway",
      "./internals",
      "./package.json",
    ]);
    for (const target of Object.values(pkg.exports)) {
      if (typeof target === "string") continue;
      const source = target.import.replace("./dist/", "").replace(/\.js$/, ".ts");
      expect(existsSync(source), source).toBe(true);
      expect(target.types).toBe(target.import.replace(/\.js$/, ".d.ts"));
    }
  });
});
