/**
 * The tool names `mcp-bridge serve` gives its clients. A host already puts each MCP server's tools
 * under that server (Claude Code `mcp__<server>__<tool>`, Codex `<server>__<tool>`, VS Code
 * `mcp_<server>_<tool>`, Gemini CLI `<server>__<tool>` on a conflict), so the library's
 * `mcp_{server}_{tool}` and its `[MCP:server] ` description prefix would say "MCP" and the host's
 * server twice (`mcp__bridge__mcp_fs_read_file`). The gateway names a tool `<server>_<tool>`: unique
 * across upstream servers, and the upstream's own description (see forwarded-tool.ts).
 */
export const SERVED_TOOL_NAME_FORMAT = "{server}_{tool}";

/**
 * The bridge settings `serve` starts its bridge with: `--tool-names` first, then the config's
 * `serveToolNameFormat`, then the default above. The library's and the CLI's `toolNameFormat` and
 * `descriptionPrefix` do not apply to what is served.
 */
export function servedNameSettings(
  flag: string | undefined,
  configured: string | undefined,
): { toolNameFormat: string; descriptionPrefix: string } {
  return { toolNameFormat: flag ?? configured ?? SERVED_TOOL_NAME_FORMAT, descriptionPrefix: "" };
}
