import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { stdioEntry, waitForExit } from "../fixtures/servers/index.js";
import { CLI, cliEnv, emptyHome } from "../helpers/cli.js";
import { pidsIn, running } from "../helpers/process.js";
import { until } from "../helpers/wait.js";

interface Gateway {
  readonly child: ChildProcess;
  readonly upstream: number[];
  /** Sends one JSON-RPC message line. */
  send(message: unknown): void;
  /** The next message with this id on stdout (bounded wait). */
  response(id: number): Promise<Record<string, unknown>>;
  readonly exited: Promise<void>;
  stderr(): string;
}

const started: ChildProcess[] = [];
afterEach(() => {
  for (const child of started.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
});

/** `serve --stdio` over one upstream server that has a child of its own, initialized by hand. */
async function startGateway(): Promise<Gateway> {
  const home = emptyHome();
  const pidsFile = join(home, "pids.json");
  writeFileSync(
    join(home, "mcp.json"),
    JSON.stringify({ mcpServers: { up: stdioEntry("spawns-child", { env: { PIDS_FILE: pidsFile } }) } }),
  );
  const child = spawn(process.execPath, [CLI, "serve", "--stdio", "-c", join(home, "mcp.json")], {
    cwd: home,
    env: cliEnv(home),
    stdio: ["pipe", "pipe", "pipe"],
  });
  started.push(child);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  let stderr = "";
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  const messages: Record<string, unknown>[] = [];
  let partial = "";
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    const lines = (partial + chunk).split("\n");
    partial = lines.pop() ?? "";
    for (const line of lines) if (line.trim()) messages.push(JSON.parse(line));
  });
  // An EPIPE on our side of a pipe the gateway closed is expected in these tests.
  child.stdin?.on("error", () => {});
  const send = (message: unknown) => child.stdin?.write(`${JSON.stringify(message)}\n`);
  const response = async (id: number) => {
    await until(() => messages.some((m) => m.id === id), 20_000);
    return messages.find((m) => m.id === id) as Record<string, unknown>;
  };
  send({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
  });
  expect(await response(1)).toHaveProperty("result");
  send({ jsonrpc: "2.0", method: "notifications/initialized" });
  await until(() => existsSync(pidsFile) && pidsIn(pidsFile).length === 2, 20_000);
  return { child, upstream: pidsIn(pidsFile), send, response, exited, stderr: () => stderr };
}

/** The gateway exits (bounded) and none of its upstream processes survive it. */
async function expectStopped(gateway: Gateway): Promise<void> {
  await Promise.race([gateway.exited, new Promise((r) => setTimeout(r, 20_000))]);
  expect(gateway.child.exitCode !== null || gateway.child.signalCode !== null).toBe(true);
  expect(await waitForExit(gateway.upstream, 10_000)).toEqual([]);
  expect(gateway.upstream.filter(running)).toEqual([]);
}

describe("serve --stdio ends with its channel", () => {
  it("answers a line over the message limit with an error, keeps reading, and exits on stdin EOF", async () => {
    const gateway = await startGateway();
    const huge = "x".repeat(11 * 1024 * 1024);
    gateway.send({
      jsonrpc: "2.0",
      id: 7,
      method: "tools/call",
      params: { name: "up/pids", arguments: { huge } },
    });
    const refused = await gateway.response(7);
    expect((refused.error as { code: number; message: string }).message).toMatch(
      /over the gateway's stdio limit/,
    );
    // Reading goes on after the dropped line.
    gateway.send({ jsonrpc: "2.0", id: 8, method: "ping" });
    expect(await gateway.response(8)).toHaveProperty("result");
    gateway.child.stdin?.end();
    await expectStopped(gateway);
  }, 60_000);

  it("exits when the host stops reading stdout for good (EPIPE)", async () => {
    const gateway = await startGateway();
    gateway.child.stdout?.destroy();
    gateway.send({ jsonrpc: "2.0", id: 9, method: "ping" });
    await expectStopped(gateway);
  }, 60_000);

  for (const signal of ["SIGTERM", "SIGHUP"] as const) {
    it(`exits on ${signal} and takes its upstream servers down`, async () => {
      const gateway = await startGateway();
      gateway.child.kill(signal);
      await expectStopped(gateway);
    }, 60_000);
  }
});
