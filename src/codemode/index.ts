// `mcp-bridge/code-mode`: the model writes a short program against a typed API of every tool, run in
// a QuickJS (WebAssembly) sandbox; only what it prints or returns reaches the model. QuickJS is
// loaded on the first execution, never at import.

export type { CodeLimitKind } from "../errors/index.js";
export { CodeLimitError } from "../errors/index.js";
export type { CodeModeSource } from "./api-cache.js";
export { codeModeBridge } from "./code-mode-bridge.js";
export type { ApiTool, CodeModeApi } from "./declarations.js";
export { buildApi as codeModeApi } from "./declarations.js";
export type { CodeExecution, ExecuteCodeOptions } from "./execute-code.js";
export { executeCode } from "./execute-code.js";
export type { CodeModeLimits } from "./limits.js";
export { CODE_MODE_LIMITS } from "./limits.js";
export type { CodeModeOptions } from "./meta-tools.js";
export { codeModeTools } from "./meta-tools.js";
export { schemaToType } from "./schema-types.js";
