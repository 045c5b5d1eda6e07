import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/client";
import { describe, expect, it } from "vitest";
import { ProcessTransport } from "../../src/transport/stdio.js";
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
