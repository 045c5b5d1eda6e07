import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type HttpFixture, startHttpFixture } from "../fixtures/servers/index.js";
import { CLI, cliEnv, emptyHome } from "../helpers/cli.js";
import { until } from "../helpers/wait.js";

/**
 * A stdio host that stops reading stdout: once its unread results reach the bound (32 MiB), its
 * further calls fail before they reach the upstream server, instead of each result being made,
 * parsed and copied only to be refused.
 */

const started: ChildProcess[] = [];
const fixtures: HttpFixture[] = [];
afterEach(async () => {
  for (const fixture of fixtures.splice(0)) await fixture.close();
  for (const child of started.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
});

const answered = (file: string) => (existsSync(file) ? readFileSync(file, "utf8").split("\n").length - 1 : 0);

describe("serve --stdio, a host that does not read stdout", () => {
  it("gets no more calls run upstream once its unread results are at the bound", async () => {
    const dir = emptyHome();
    const callsFile = join(dir, "calls");
    const upstream = await startHttpFixture("big-results", ["--calls-file", callsFile]);
    fixtures.push(upstream);
    writeFileSync(
      join(dir, "mcp.json"),
      JSON.stringify({ mcpServers: { up: { type: "http", url: upstream.url } } }),
    );
    const child = spawn(process.execPath, [CLI, "serve", "--stdio", "-c", join(dir, "mcp.json")], {
      cwd: dir,
      env: cliEnv(dir),
      stdio: ["pipe", "pipe", "ignore"],
    });
    started.push(child);
    // stdout is a pipe nobody reads.
    child.stdout?.pause();
    child.stdin?.on("error", () => {});
    const send = (message: unknown) => child.stdin?.write(`${JSON.stringify(message)}\n`);
    send({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
    });
    send({ jsonrpc: "2.0", method: "notifications/initialized" });
    // 12 MiB results: two fit in the 32 MiB bound, the third is refused; every later call is too. A
    // call is sent once upstream answered the previous one, whose result may still be on its way to
    // the gateway: a few more may run before the gateway knows; none once it does.
    const call = async (id: number, waitMs: number) => {
      send({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "up_big", arguments: { mb: 12 } } });
      // The next call once this one was run upstream (bounded: a refused call never is).
      await until(() => answered(callsFile) > id - 10, waitMs).catch(() => {});
    };
    for (let id = 10; id < 13; id++) await call(id, 20_000);
    for (let id = 13; id < 25; id++) await call(id, 1_000);
    const settled = answered(callsFile);
    for (let id = 25; id < 31; id++) await call(id, 1_000);
    const calls = answered(callsFile);
    process.stdout.write(`stdio host not reading: ${calls} of 21 calls of 12 MiB run upstream\n`);
    expect(calls).toBeGreaterThanOrEqual(2);
    // Without the bound every call runs (21 of 21).
    expect(calls).toBe(settled);
    expect(calls).toBeLessThan(15);
    expect(child.exitCode).toBe(null);
  }, 120_000);
});
