// `mcp-bridge/internals`: the building blocks the bridge is made of, for hosts that assemble their
// own pipeline (a registry without connections, argument validation, result conversion, config
// parsing and trust, redaction). No stability promise: these follow the implementation, and a minor
// version may change them. Everything a host needs to run servers is the main entry, `mcp-bridge`.

export { DEFAULT_RESTART_POLICY, DEFAULT_SETTINGS } from "./config/defaults.js";
export { diffServers, type ServerDiff } from "./config/diff.js";
export { type ImportResult, importLocations, importServers } from "./config/imports.js";
export { hostConfigsFound } from "./config/load.js";
export { parseConfigText } from "./config/parse.js";
export { isProjectFile } from "./config/project.js";
export { redactConfig, redactServer } from "./config/redact-config.js";
export { secretsOf } from "./config/secrets.js";
export { defaultTrustFile, projectServerRequests, TrustStore } from "./config/trust.js";
export { errorMessages, type PendingServer } from "./errors/index.js";
export { cutDescription, MAX_DESCRIPTION_CHARS } from "./registry/description-limits.js";
export { matchesToolFilter } from "./registry/filter.js";
export { flattenParameters } from "./registry/flatten.js";
export {
  baseToolName,
  formatToolName,
  MAX_TOOL_NAME_LENGTH,
  nameHash,
  normalizeNamePart,
  normalizeServerPart,
  normalizeToolPart,
  readablePart,
} from "./registry/naming.js";
export { ToolRegistry, type ToolRegistryOptions } from "./registry/registry.js";
export { type CallOutcome, CallStats } from "./registry/stats.js";
export { type SkippedTool, unsupportedReason } from "./registry/support.js";
export { type ArgumentIssue, validateArguments } from "./registry/validate.js";
export { type ConvertOptions, errorToolResult, textForModel, toToolResult } from "./results/convert.js";
export { truncateText } from "./results/truncate.js";
export { ToolSearchIndex } from "./search/tool-search.js";
export { parseDuration } from "./util/duration.js";
export { redactText, redactUrl } from "./util/redact.js";
