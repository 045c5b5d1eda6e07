import type { Bridge, CallOptions } from "../bridge/api.js";
import { unknownTool } from "../errors/index.js";
import { errorToolResult } from "../results/convert.js";
import type { ToolResult } from "../results/tool-result.js";
import { DEFAULT_SEARCH_LIMIT } from "../search/search-tools-input.js";
import type { ToolSearchOptions } from "../search/tool-search.js";
import { type CodeModeOptions, codeModeTools } from "./meta-tools.js";

/**
 * The bridge as a host sees it in code mode: its tools are the three meta-tools, and everything else
 * (servers, resources, prompts, events, close) is the bridge's own. What `serve --code-mode` and
 * `chat --code-mode` hand to the gateway and the chat, which then need no code-mode branch of their
 * own. The meta-tools call the real bridge, so every tool call a program makes takes the same path
 * as a direct one.
 */
export function codeModeBridge(bridge: Bridge, options: CodeModeOptions = {}): Bridge {
  const tools = codeModeTools(bridge, options);
  const byName = new Map(tools.map((entry) => [entry.name, entry]));
  const overrides: Partial<Bridge> = {
    tools: (filter?: { server?: string }) => (filter?.server ? [] : [...tools]),
    tool: (name: string) => byName.get(name),
    searchTools: (query: string, searchOptions?: ToolSearchOptions) => {
      const wanted = query.trim();
      return tools.filter((t) => t.name === wanted).slice(0, searchOptions?.limit ?? DEFAULT_SEARCH_LIMIT);
    },
    resolve: (name: string) => (byName.has(name) ? { server: "", tool: name } : undefined),
    call: (name: string, args?: Record<string, unknown>, callOptions?: CallOptions): Promise<ToolResult> => {
      const entry = byName.get(name);
      if (entry) return entry.call(args, callOptions);
      // The servers' own tools are reached through execute_code only.
      const error = unknownTool({ name: name.slice(0, 200), registered: tools.length, pending: [] });
      return callOptions?.onError === "result"
        ? Promise.resolve(errorToolResult(error))
        : Promise.reject(error);
    },
  };
  // A view, not a copy: every member not overridden is the bridge's, called on the bridge itself
  // (its private state stays reachable), so members added to Bridge later need nothing here.
  return new Proxy(bridge, {
    get(target, property) {
      if (Object.hasOwn(overrides, property)) return overrides[property as keyof Bridge];
      const value = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
