import type { ToolFilter } from "../config/model.js";

const compiled = new Map<string, RegExp>();

function globToRegExp(glob: string): RegExp {
  let regexp = compiled.get(glob);
  if (!regexp) {
    const source = glob
      .split("*")
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
      .join(".*");
    regexp = new RegExp(`^${source}$`, "s");
    compiled.set(glob, regexp);
  }
  return regexp;
}

/** Whether a pattern (an exact name or a `*` glob) matches an original tool name. */
export function matchesPattern(pattern: string, toolName: string): boolean {
  return pattern.includes("*") ? globToRegExp(pattern).test(toolName) : pattern === toolName;
}

/** Include list (when non-empty) then exclude list; exclude wins. */
export function matchesToolFilter(filter: ToolFilter, toolName: string): boolean {
  if (filter.include.length > 0 && !filter.include.some((pattern) => matchesPattern(pattern, toolName))) {
    return false;
  }
  return !filter.exclude.some((pattern) => matchesPattern(pattern, toolName));
}
