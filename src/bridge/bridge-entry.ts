import { lazyImport } from "../util/lazy-import.js";
import type { Bridge, BridgeOptions } from "./api.js";

/**
 * `startBridge` and `McpBridge` as the library's entry exports them: the runtime (the SDK client,
 * zod, the config loader, connections, registry) loads on the first start, not at `import "mcp-bridge"`
 * (test/cli/start-modules.test.ts keeps it so). Inside mcp-bridge, import bridge.ts directly.
 */
const runtime = lazyImport("the bridge runtime", () => import("./bridge.js"));

/**
 * Loads the config, connects every enabled server in parallel and resolves once each is connected or
 * has failed (or at once with `wait: false`). A failing server never makes this reject; only a server
 * marked `required` that could not start does (unless `enforceRequired: false`).
 */
export async function startBridge(options: BridgeOptions = {}): Promise<Bridge> {
  return (await runtime()).startBridge(options);
}

/** `McpBridge.start(options)`: the same as `startBridge(options)`. */
export const McpBridge = { start: startBridge } as const;
