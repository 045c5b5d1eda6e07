import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/client";
import { describe, expect, it } from "vitest";
import { ProcessTransport } from "../../src/transport/process-transport.js";
import { fixturePath } from "../fixtures/servers/index.js";
import { until } from "../helpers/wait.js";

const modes = process.platform === "win32" ? [false] : [true, false];

/** The same contract with and without the supervisor (Windows runs without). */
describe.each(modes)("ProcessTransport (supervised: %s)", (supervise) => {
  const transportFor = (args: string[], command = process.execPath) =>
    new ProcessTransport({ command, args, env: { PATH: process.env.PATH ?? "" }, supervise });

  it("connects; pid is the server's own; a server killed by a signal is reported so", async () => {
    const transport = transportFor([fixturePath("normal")]);
    const client = new Client({ name: "test", version: "1.0.0" });
    await client.connect(transport);
    try {
      const pid = transport.pid as number;
      if (process.platform === "linux") {
        expect(readFileSync(`/proc/${pid}/cmdline`, "utf8")).toContain("normal.js");
      }
      const closed = new Promise<void>((resolve) => {
        transport.onclose = resolve;
      });
      process.kill(pid, "SIGKILL");
      await closed;
      await until(() => transport.exitInfo !== undefined);
      expect(transport.exitInfo).toEqual({ code: null, signal: "SIGKILL" });
    } finally {
      await client.close();
    }
  });

  it("an exit code is reported as is", async () => {
    const transport = transportFor([fixturePath("exits-at-start")]);
    const closed = new Promise<void>((resolve) => {
      transport.onclose = resolve;
    });
    await transport.start();
    await closed;
    expect(transport.exitInfo?.code).not.toBe(0);
    expect(transport.exitInfo?.signal).toBeNull();
  });

  it("a command that does not exist fails start() with ENOENT", async () => {
    const transport = transportFor([], "/nonexistent/mcp-bridge-no-such-command");
    await expect(transport.start()).rejects.toMatchObject({ code: "ENOENT" });
    await transport.close();
  });
});

describe("ProcessTransport against a stream without newlines", () => {
  it("a dropped line growing past brokenLineBytes breaks the stream even while bytes keep coming", async () => {
    const transport = new ProcessTransport({
      command: process.execPath,
      args: [fixturePath("floods-stdout")],
      env: { PATH: process.env.PATH ?? "" },
      maxKeptBytes: 1024 * 1024,
      brokenLineBytes: 8 * 1024 * 1024,
    });
    const errors: string[] = [];
    const client = new Client({ name: "test", version: "1.0.0" });
    await client.connect(transport);
    transport.onerror = (error) => errors.push(error.message);
    try {
      // 64 MB written without a pause; the answer would come after it, on the same line.
      const call = client.callTool({ name: "flood", arguments: { bytes: 64_000_000 } }, { timeout: 30_000 });
      await expect(call).rejects.toMatchObject({ code: "CONNECTION_CLOSED" });
      expect(errors.some((message) => message.includes("without a newline"))).toBe(true);
    } finally {
      await client.close();
    }
  }, 40_000);
});
