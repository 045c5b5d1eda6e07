import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startBridge } from "../../src/index.js";
import { stdioEntry } from "../fixtures/servers/index.js";
import { tempDirs } from "../helpers/wait.js";

const tempDir = tempDirs("mcp-bridge-reload-burst-");

describe("a burst of reloads", () => {
  it("calls made during 30 changed-config reloads 20 ms apart all reach a server", async () => {
    const dir = tempDir();
    const file = join(dir, "mcp.json");
    // Each generation differs (an env value), so every reload replaces the server's process.
    const write = (generation: number) =>
      writeFileSync(
        file,
        JSON.stringify({
          mcpServers: { a: stdioEntry("normal", { env: { GENERATION: String(generation) } }) },
        }),
      );
    write(0);
    await using bridge = await startBridge({ config: file, env: {} });
    const calls: Promise<unknown>[] = [];
    const reloads: Promise<unknown>[] = [];
    for (let generation = 1; generation <= 30; generation++) {
      write(generation);
      reloads.push(bridge.reload());
      for (let i = 0; i < 10; i++) {
        calls.push(
          bridge.call("mcp_a_add", { a: generation, b: i }, { timeout: 25_000 }).then(
            (result) => result.text,
            (error: unknown) => `failed: ${(error as Error).message}`,
          ),
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await Promise.all(reloads);
    const outcomes = await Promise.all(calls);
    const failed = outcomes.filter((outcome) => String(outcome).startsWith("failed"));
    expect(failed.length, `${failed.length} of 300 failed, e.g. ${failed[0]}`).toBe(0);
    expect(bridge.server("a")?.state).toBe("connected");
  }, 60_000);
});

describe("a burst of reloads, beyond tools", () => {
  it("resource reads made during 15 changed-config reloads all reach a server", async () => {
    const dir = tempDir();
    const file = join(dir, "mcp.json");
    const write = (generation: number) =>
      writeFileSync(
        file,
        JSON.stringify({
          mcpServers: { echo: stdioEntry("echoes-meta", { env: { GENERATION: String(generation) } }) },
        }),
      );
    write(0);
    await using bridge = await startBridge({ config: file, env: {} });
    const reads: Promise<string>[] = [];
    const reloads: Promise<unknown>[] = [];
    for (let generation = 1; generation <= 15; generation++) {
      write(generation);
      reloads.push(bridge.reload());
      for (let i = 0; i < 4; i++) {
        reads.push(
          bridge.readResource("memo://note", { server: "echo", timeout: 25_000 }).then(
            () => "ok",
            (error: unknown) => `failed: ${(error as Error).message}`,
          ),
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await Promise.all(reloads);
    const failed = (await Promise.all(reads)).filter((outcome) => outcome !== "ok");
    expect(failed.length, `${failed.length} of 60 failed, e.g. ${failed[0]}`).toBe(0);
  }, 60_000);
});
