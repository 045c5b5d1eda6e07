import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);

/** In a fresh process: no manager at first, the one we register carries context across awaits and timers. */
describe("ensureContextManager", () => {
  it("registers an AsyncLocalStorage manager once, and only when the process has none", async () => {
    const program = `
      import * as api from "@opentelemetry/api";
      import { ensureContextManager } from ${JSON.stringify(join(process.cwd(), "dist/src/telemetry/context-manager.js"))};
      const key = api.createContextKey("k");
      const seen = () => api.context.active().getValue(key);
      const before = await api.context.with(api.ROOT_CONTEXT.setValue(key, "v"), async () => seen());
      const registered = ensureContextManager(api);
      const again = ensureContextManager(api);
      const after = await api.context.with(api.ROOT_CONTEXT.setValue(key, "v"), async () => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        return seen();
      });
      const outside = seen();
      process.stdout.write(JSON.stringify({ before: before ?? null, registered, again, after, outside: outside ?? null }));
    `;
    const { stdout } = await run(process.execPath, ["--input-type=module", "-e", program], {
      cwd: process.cwd(),
      timeout: 30_000,
    });
    expect(JSON.parse(stdout)).toEqual({
      before: null,
      registered: true,
      again: false,
      after: "v",
      outside: null,
    });
  }, 40_000);
});
