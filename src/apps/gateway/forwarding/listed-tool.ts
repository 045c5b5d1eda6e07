import type { Bridge, ToolEntry } from "../../../bridge/api.js";
import { someServerConnecting } from "../../../bridge/servers/servers-settled.js";
import { normalizeNamePart, normalizeServerPart } from "../../../registry/naming.js";

type ServerStatus = ReturnType<Bridge["servers"]>[number];

/**
 * A called tool by its served name. The gateway answers `tools/list` before its upstream servers are
 * up (see serve-command.ts), so a host may call a tool it knows from an earlier session, or one a
 * `list_changed` is about to announce, while its server still connects: such a name is waited for,
 * as long as some server is still connecting, up to the call timeout or the request's end. Undefined:
 * no server brought it.
 */
export async function listedTool(
  bridge: Bridge,
  name: string,
  signal: AbortSignal,
): Promise<ToolEntry | undefined> {
  const now = bridge.tool(name);
  if (now || !someServerConnecting(bridge) || signal.aborted) return now;
  return new Promise<ToolEntry | undefined>((resolve) => {
    const finish = (entry: ToolEntry | undefined) => {
      clearTimeout(timer);
      for (const off of listening) off();
      signal.removeEventListener("abort", aborted);
      resolve(entry);
    };
    const aborted = () => finish(undefined);
    // Tools are published before their server is reported connected: when the last one is, its
    // tools are already known.
    const check = () => {
      try {
        const entry = bridge.tool(name);
        if (entry || !someServerConnecting(bridge)) finish(entry);
      } catch {
        // The bridge is closing: the call is answered as for an unknown tool.
        finish(undefined);
      }
    };
    const timer = setTimeout(aborted, bridge.config.settings.callTimeoutMs);
    const listening = [bridge.on("toolsChanged", check), bridge.on("serverStateChanged", check)];
    signal.addEventListener("abort", aborted, { once: true });
  });
}

/**
 * The upstream server that would serve `name` under the served name format but is down (failed to
 * start or gave up reconnecting), so that a call to one of its tools can say so instead of "unknown
 * tool". Only a format with one `{tool}` can be read back; a name no down server matches is undefined.
 */
export function downServerOf(bridge: Bridge, name: string): ServerStatus | undefined {
  const format = bridge.config.settings.toolNameFormat;
  const parts = format.split("{tool}");
  if (parts.length !== 2) return undefined;
  const [before = "", after = ""] = parts;
  return bridge
    .servers()
    .filter((s) => s.state === "failed" || s.state === "invalid")
    .find((s) => {
      const fill = (text: string) =>
        normalizeNamePart(text.replaceAll("{server}", () => normalizeServerPart(s.name)));
      const head = fill(before);
      const tail = fill(after);
      return name.length > head.length + tail.length && name.startsWith(head) && name.endsWith(tail);
    });
}
