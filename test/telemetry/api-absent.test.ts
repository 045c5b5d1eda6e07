import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { fixturePath } from "../fixtures/servers/index.js";

const run = promisify(execFile);

/**
 * A host without `@opentelemetry/api` (an optional peer): the built library starts, calls and closes
 * as usual, with the default setting and with providers passed in, and sends no trace context.
 */
describe("without the @opentelemetry packages installed", () => {
  it("works and sends no trace context, whatever the telemetry option", async () => {
    const program = `
      import { startBridge } from ${JSON.stringify(join(process.cwd(), "dist/src/index.js"))};
      let hidden = false;
      try { await import("@opentelemetry/api"); } catch { hidden = true; }
      const out = { hidden };
      const provider = { getTracer: () => { throw new Error("must not be used"); } };
      for (const telemetry of [undefined, true, { tracerProvider: provider }]) {
        const bridge = await startBridge({
          servers: { echo: { command: process.execPath, args: [${JSON.stringify(fixturePath("echoes-meta"))}] } },
          ...(telemetry === undefined ? {} : { telemetry }),
        });
        const result = await bridge.call("mcp_echo_meta");
        await bridge.close();
        (out.metas ??= []).push(JSON.parse(result.text));
      }
      const { serveMetrics } = await import(${JSON.stringify(join(process.cwd(), "dist/src/telemetry/prometheus.js"))});
      out.metricsError = await serveMetrics({ host: "127.0.0.1", port: 0 }).then(
        () => "served",
        (error) => ({ code: error.code, message: error.message }),
      );
      process.stdout.write(JSON.stringify(out));
    `;
    const { stdout } = await run(
      process.execPath,
      [
        "--import",
        join(process.cwd(), "test/fixtures/hide-otel-api.mjs"),
        "--input-type=module",
        "-e",
        program,
      ],
      { timeout: 60_000 },
    );
    const out = JSON.parse(stdout) as {
      hidden: boolean;
      metas: Record<string, unknown>[];
      metricsError: { code: string; message: string };
    };
    expect(out.hidden).toBe(true);
    expect(out.metas).toHaveLength(3);
    for (const meta of out.metas) expect(meta.traceparent).toBeUndefined();
    // Prometheus metrics (the gateway's --metrics) say what to install.
    expect(out.metricsError.code).toBe("USAGE");
    expect(out.metricsError.message).toContain("npm install @opentelemetry/api @opentelemetry/sdk-metrics");
  }, 90_000);
});
