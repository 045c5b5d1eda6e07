import { describe, expect, it } from "vitest";
import { McpBridgeError, startBridge } from "../../src/index.js";
import { stdioEntry } from "../fixtures/servers/index.js";

const MiB = 1024 * 1024;

describe("stdio framing against misbehaving servers", () => {
  it("a flood without a newline from a server that then stops is a broken stream: pending calls fail, the server restarts", async () => {
    await using bridge = await startBridge({
      servers: { flood: stdioEntry("floods-stdout", { restart: { initialDelay: "20ms" } }) },
    });
    const flooded = bridge
      .call("flood/flood", { bytes: 100_000_000, hang: true }, { timeout: 60_000 })
      .catch((error: unknown) => error);
    expect(await flooded).toMatchObject({ code: "SERVER_CRASHED", server: "flood" });
    expect((await bridge.call("flood/add", { a: 2, b: 3 }, { timeout: 20_000 })).text).toBe("5");
    expect(bridge.server("flood")).toMatchObject({ state: "connected", restarts: 1 });
  }, 90_000);

  it("progress notifications read in the same chunk as the response reach the caller before the result", async () => {
    await using bridge = await startBridge({ servers: { batch: stdioEntry("batched-progress") } });
    for (let round = 0; round < 3; round++) {
      const seen: number[] = [];
      const result = await bridge.call(
        "batch/progress",
        { steps: 3 },
        { onProgress: (p) => seen.push(p.progress) },
      );
      expect(result.text).toBe("done after 3 steps");
      expect(seen).toEqual([1, 2, 3]);
    }
  });

  it("a byte order mark before the first line does not break the handshake", async () => {
    await using bridge = await startBridge({ servers: { bom: stdioEntry("floods-stdout", {}, ["--bom"]) } });
    expect(bridge.server("bom")?.state).toBe("connected");
    expect((await bridge.call("bom/add", { a: 1, b: 1 })).text).toBe("2");
  });

  it("an oversized response written id-first fails its own call, not the call named by a nested id", async () => {
    await using bridge = await startBridge({
      servers: { ids: stdioEntry("id-first-responses", { maxMessageBytes: 100_000 }) },
    });
    const sleeping = bridge.call("ids/sleep", { ms: 1500 }, { timeout: 20_000 }).catch((e: unknown) => e);
    const big = bridge.call("ids/big", { bytes: 300_000 }, { timeout: 10_000 }).catch((e: unknown) => e);
    expect(await big).toMatchObject({ code: "RESULT_TOO_LARGE", server: "ids", tool: "big" });
    expect(await sleeping).toMatchObject({ text: "slept" });
  }, 30_000);

  it("a message huge outside string literals fails only its call, with bounded memory; the connection stays", async () => {
    await using bridge = await startBridge({ servers: { nums: stdioEntry("huge-structured") } });
    const before = process.memoryUsage().rss;
    // 8 million numbers: about 64 MB of JSON outside any string, twice what a message may keep.
    const [huge, ...small] = await Promise.all([
      bridge.call("nums/numbers", { count: 8_000_000 }, { timeout: 120_000 }).catch((e: unknown) => e),
      ...Array.from({ length: 5 }, (_, i) =>
        bridge.call("nums/echo", { text: `t${i}` }, { timeout: 120_000 }),
      ),
    ]);
    const grew = process.memoryUsage().rss - before;
    expect(huge).toBeInstanceOf(McpBridgeError);
    expect(huge).toMatchObject({ code: "RESULT_TOO_LARGE", tool: "numbers" });
    expect(small.map((r) => r.text)).toEqual(["t0", "t1", "t2", "t3", "t4"]);
    expect(bridge.server("nums")).toMatchObject({ state: "connected", restarts: 0 });
    process.stdout.write(`huge structured result: host RSS grew ${Math.round(grew / MiB)} MiB\n`);
    // Keeping the whole line would cost its bytes, its string and its parse (~3x 64 MB).
    expect(grew).toBeLessThan(150 * MiB);
  }, 150_000);

  it("a server that stops reading stdin: callers wait on backpressure, the host prints no warning", async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
    process.on("warning", onWarning);
    try {
      await using bridge = await startBridge({
        servers: { stuck: stdioEntry("stops-reading-stdin"), other: stdioEntry("stops-reading-stdin") },
      });
      expect((await bridge.call("stuck/stop_reading")).text).toBe("stopped");
      const big = "x".repeat(64 * 1024);
      const stuck = await Promise.all(
        Array.from({ length: 40 }, () =>
          bridge.call("stuck/echo", { text: big }, { timeout: 1500 }).catch((e: unknown) => e),
        ),
      );
      expect(stuck.every((e) => e instanceof McpBridgeError && e.code === "TOOL_TIMEOUT")).toBe(true);
      // The other connection is not held up by this one's full pipe.
      expect((await bridge.call("other/echo", { text: "fine" })).text).toBe("fine");
    } finally {
      process.off("warning", onWarning);
    }
    expect(warnings.filter((w) => w.includes("MaxListenersExceeded"))).toEqual([]);
  }, 30_000);

  it("a missing cwd is reported as such, naming the directory", async () => {
    const missing = "/nonexistent/mcp-bridge-test-dir";
    await using bridge = await startBridge({ servers: { lost: stdioEntry("normal", { cwd: missing }) } });
    const server = bridge.server("lost");
    expect(server?.state).toBe("failed");
    expect(server?.lastError?.code).toBe("SERVER_START_FAILED");
    expect(server?.lastError?.message).toContain(missing);
    expect(server?.lastError?.message).not.toMatch(/PATH/);
  });
});
