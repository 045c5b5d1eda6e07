import { unknownToolError } from "../bridge/diagnostics.js";
import type { Bridge, ToolEntry } from "../bridge/types.js";
import { type McpBridgeError, toolNotOffered } from "../errors/index.js";

/**
 * The one step that turns a model-chosen tool name into the tool a call will run. A host asks for
 * approval on what this returns and then runs exactly that entry (`entry.call`), never the model's
 * name again: a name that the approval could not see and the call could (a `server/tool` spelling,
 * a tool of a server still connecting, a tool the host did not offer) cannot slip past the approval.
 *
 * Only offered tools resolve. A name that matches a tool the bridge has but the host did not offer
 * (a server switched off for the session, a filtered tool) is refused, not run.
 */

/** The separators a model writes between a server's name and its tool's (`calc/add`, `calc.add`, `calc:add`). */
const SEPARATORS = new Set(["/", ".", ":"]);

/**
 * The offered tool a name means: its exposed name, or its server's name and original tool name
 * joined by `/`, `.` or `:`. A spelling that fits two tools (server `a` tool `b.c`, server `a.b` tool
 * `c`) means neither. Pure.
 */
export function findTool(tools: readonly ToolEntry[], name: string): ToolEntry | undefined {
  const exact = tools.find((tool) => tool.name === name);
  if (exact) return exact;
  const matches = new Set<ToolEntry>();
  for (let index = 1; index < name.length - 1; index++) {
    if (!SEPARATORS.has(name.charAt(index))) continue;
    const server = name.slice(0, index);
    const tool = name.slice(index + 1);
    for (const entry of tools) if (entry.server === server && entry.tool === tool) matches.add(entry);
  }
  return matches.size === 1 ? [...matches][0] : undefined;
}

/** What resolving needs of a bridge; `servers` and `on` let it wait for servers still connecting. */
export type ResolveSource = Pick<Bridge, "tools"> & Partial<Pick<Bridge, "servers" | "on">>;

export interface ResolveOptions {
  /** The tools the host offered the model (default: every tool of the bridge), read at each look. */
  readonly offered?: (() => readonly ToolEntry[]) | undefined;
  readonly signal?: AbortSignal | undefined;
  /** How long to wait, in milliseconds, for servers still connecting to bring the tool. */
  readonly timeout?: number | undefined;
}

export type Resolution =
  | { readonly ok: true; readonly entry: ToolEntry }
  | { readonly ok: false; readonly error: McpBridgeError };

/** Waiting for connecting servers is bounded by this when the caller gives no timeout. */
const DEFAULT_WAIT_MS = 60_000;

/**
 * The offered tool a model's call names, waiting (within `timeout` and `signal`) while a server that
 * may bring it is still connecting. Never throws: a name that names no offered tool is an error the
 * model can read.
 */
export async function resolveToolCall(
  source: ResolveSource,
  name: string,
  options: ResolveOptions = {},
): Promise<Resolution> {
  const offered = options.offered ?? (() => source.tools());
  const look = (): Resolution | undefined => {
    const entry = findTool(offered(), name);
    if (entry) return { ok: true, entry };
    // Known to the bridge but not offered (switched off for the session, filtered out): refused now.
    const hidden = findTool(source.tools(), name);
    if (hidden) return { ok: false, error: notOffered(name, hidden) };
    return connecting(source) ? undefined : { ok: false, error: unknown(source, name) };
  };
  const first = look();
  if (first) return first;
  return new Promise<Resolution>((resolve) => {
    const unsubscribe: (() => void)[] = [];
    const settle = (resolution: Resolution) => {
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", aborted);
      for (const off of unsubscribe) off();
      resolve(resolution);
    };
    const again = () => {
      const resolution = look();
      if (resolution) settle(resolution);
    };
    const aborted = () => settle({ ok: false, error: unknown(source, name) });
    const timer = setTimeout(aborted, options.timeout ?? DEFAULT_WAIT_MS);
    options.signal?.addEventListener("abort", aborted, { once: true });
    if (options.signal?.aborted) return aborted();
    unsubscribe.push(source.on?.("toolsChanged", again) ?? (() => {}));
    unsubscribe.push(source.on?.("serverStateChanged", again) ?? (() => {}));
    // A change between the first look and the subscriptions would otherwise be missed.
    again();
  });
}

function connecting(source: ResolveSource): boolean {
  if (!source.on || !source.servers) return false;
  return source.servers().some((status) => status.state === "connecting");
}

function unknown(source: ResolveSource, name: string): McpBridgeError {
  const tools = source.tools();
  return unknownToolError(name.slice(0, 200), undefined, source.servers?.() ?? [], tools.length);
}

function notOffered(name: string, entry: ToolEntry): McpBridgeError {
  return toolNotOffered({ name, server: entry.server, tool: entry.tool });
}
