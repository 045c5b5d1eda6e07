/**
 * The one switch over every place where mcp-bridge leans on an SDK or undici internal (the files of
 * this folder). Each shim also detects at run time whether the internal it needs is still what it was
 * checked against, and takes the SDK's public path when not; this switch turns them all off at once,
 * so the public path can be tested (test/sdk/shims-off.test.ts) and a user who suspects a shim can rule
 * it out without a release.
 *
 * `MCP_BRIDGE_SDK_SHIMS`, read on first use: unset, `1` or `on` keeps every shim; `0` or `off` turns
 * every one off; a comma list of shim names keeps just those (to measure one shim alone).
 *
 * Measured and removed (`node dist/bench/profile-calls.js bridge stdio 4000 N`, client CPU per warm
 * call, median of 3 alternated runs, every other shim on): a hand-written parse of plain result
 * responses (1 in flight 27.5 us with it, 29.9 us without; 8 in flight 21.1 / 23.1 us; alone, 0.5
 * against 1.4 us per line) and a `transport.onmessage` override that settled them through the
 * Protocol's private `_responseHandlers`/`_cleanupTimeout` (27.5 / 29.2 us; 21.1 / 24.1 us). Both
 * differences lie within the run-to-run spread on the shared machine (3 to 7 us), and the second
 * patched the deepest internals of all.
 */

import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

/** The shims, by the name the switch takes. */
export const SDK_SHIMS = [
  /** protocol-tables.ts: IdTables for the SDK Protocol's private request tables. */
  "id-tables",
  /** plain-tool-result.ts: plain tools/call results validated by hand, on a request the client sends. */
  "plain-tool-result",
  /** keepalive-fetch.ts and settled-response.ts: the Streamable HTTP transport's fetch over node:http. */
  "keepalive-fetch",
  /** modern-answer.ts: the gateway's own answer to a 2026-07-28 tools/call (restated SDK encoding). */
  "modern-answer",
] as const;

export type SdkShim = (typeof SDK_SHIMS)[number];

export const SDK_SHIMS_ENV = "MCP_BRIDGE_SDK_SHIMS";

let enabled: ReadonlySet<SdkShim> | undefined;

/** Whether `shim` may be used (it still checks its internal before it is). */
export function sdkShimEnabled(shim: SdkShim): boolean {
  enabled ??= fromEnvironment(process.env[SDK_SHIMS_ENV]);
  return enabled.has(shim);
}

/**
 * Sets the switch for this process: true (every shim), false (none), a list (just those), or
 * undefined (the environment's choice again). For tests and benchmarks; takes effect for the clients,
 * servers and transports created from then on.
 */
export function setSdkShims(shims: boolean | readonly SdkShim[] | undefined): void {
  if (shims === undefined) enabled = undefined;
  else if (typeof shims === "boolean") enabled = new Set(shims ? SDK_SHIMS : []);
  else enabled = new Set(shims);
}

function fromEnvironment(value: string | undefined): ReadonlySet<SdkShim> {
  const text = value?.trim().toLowerCase() ?? "";
  if (text === "" || text === "1" || text === "on") return new Set(SDK_SHIMS);
  if (text === "0" || text === "off") return new Set();
  const names = text.split(",").map((name) => name.trim());
  // An unknown name is ignored rather than fatal: the switch can only take speed away, never break.
  return new Set(SDK_SHIMS.filter((shim) => names.includes(shim)));
}

/**
 * The version of an installed package (found from its CommonJS entry, since the SDK packages do not
 * export their package.json), or undefined when it cannot be read.
 */
export function installedVersion(name: string): string | undefined {
  try {
    let dir = dirname(createRequire(import.meta.url).resolve(name));
    for (let depth = 0; depth < 4; depth++, dir = dirname(dir)) {
      try {
        const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
          name?: unknown;
          version?: unknown;
        };
        if (manifest.name === name && typeof manifest.version === "string") return manifest.version;
      } catch {
        // No manifest at this level: look one up.
      }
    }
  } catch {
    // Not resolvable from here.
  }
  return undefined;
}
