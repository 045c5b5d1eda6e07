import { type ChildProcess, spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterEach, describe, expect, it } from "vitest";
import { stdioEntry } from "../fixtures/servers/index.js";
import { cliEnv, spawnCli } from "../helpers/cli.js";
import { tempDirs, until } from "../helpers/wait.js";
import { textOf } from "./client.js";

/**
 * Issue 38.5: `serve --http --state-dir` killed with `kill -9` and started again on the same port
 * continues every session it issued: the SDK's own client, untouched, keeps its `Mcp-Session-Id` and
 * every call after the restart succeeds; only the call running at the kill fails.
 */

const tempDir = tempDirs("mcp-bridge-restart-");
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
});

/** Starts `serve --http` and resolves with its URL once it listens (its --json line). */
function serve(
  home: string,
  port: number | string,
  extra: string[] = [],
): Promise<{ child: ChildProcess; url: string }> {
  const args = ["serve", "--http", String(port), "--json", "-c", join(home, "mcp.json"), ...extra];
  const child = spawnCli(args, { cwd: home, env: cliEnv(home) });
  children.push(child);
  let stderr = "";
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`serve did not print its URL: ${stderr}`)), 30_000);
    child.once("exit", (code) => reject(new Error(`serve exited (${code}): ${stderr}`)));
    child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
      out += chunk;
      const line = out.split("\n").find((l) => l.startsWith("{"));
      if (line) {
        clearTimeout(timer);
        resolve({ child, url: (JSON.parse(line) as { url: string }).url });
      }
    });
  });
}

function home(): string {
  const dir = tempDir();
  const servers = { calc: stdioEntry("normal"), slow: stdioEntry("slow-tool") };
  writeFileSync(join(dir, "mcp.json"), JSON.stringify({ mcpServers: servers }));
  return dir;
}

const inFlight = async (url: string) =>
  ((await (await fetch(new URL("/readyz", url))).json()) as { inFlight: number }).inFlight;

describe("a gateway restart loses no client (--state-dir)", () => {
  it("the SDK client's session continues across kill -9 and a restart; only the running call fails", async () => {
    const dir = home();
    const state = join(dir, "state");
    const first = await serve(dir, 0, ["--state-dir", state]);
    const port = new URL(first.url).port;
    const client = new Client(
      { name: "restart-test", version: "1.0.0" },
      { versionNegotiation: { mode: "legacy" } },
    );
    const transport = new StreamableHTTPClientTransport(new URL(first.url));
    await client.connect(transport);
    const session = transport.sessionId;
    expect(session).toBeDefined();
    const failures: unknown[] = [];
    const add = async (a: number) => {
      try {
        return textOf(await client.callTool({ name: "calc_add", arguments: { a, b: 1 } }));
      } catch (error) {
        failures.push(error);
        return undefined;
      }
    };
    for (let i = 0; i < 5; i++) expect(await add(i)).toBe(String(i + 1));

    const running = client.callTool({ name: "slow_sleep", arguments: { ms: 60_000 } }).then(
      () => "answered",
      (error: unknown) => error,
    );
    await until(async () => (await inFlight(first.url)) > 0, 20_000);
    first.child.kill("SIGKILL");
    const second = await serve(dir, port, ["--state-dir", state]);
    expect(second.url).toBe(first.url);
    // The call that was running fails once, with an error the client may retry on.
    expect(await running).toBeInstanceOf(Error);

    for (let i = 0; i < 5; i++) expect(await add(10 + i)).toBe(String(11 + i));
    const tools = await client.listTools();
    expect(tools.tools.map((tool) => tool.name)).toContain("slow_sleep");
    expect(transport.sessionId).toBe(session);
    expect(failures).toEqual([]);
    await client.close();
  }, 120_000);

  it("a plain Python client (standard library, urllib) keeps its session across kill -9 and a restart", async () => {
    const dir = home();
    const state = join(dir, "state");
    const first = await serve(dir, 0, ["--state-dir", state]);
    const python = spawn("python3", [resolve("test/fixtures/clients/stdlib_client.py")], {
      stdio: ["pipe", "pipe", "inherit"],
    });
    children.push(python);
    const lines = createInterface({ input: python.stdout as NodeJS.ReadableStream })[Symbol.asyncIterator]();
    const ask = async (command: string) => {
      python.stdin?.write(`${command}\n`);
      const next = await lines.next();
      return JSON.parse(next.value as string) as {
        ok: boolean;
        text?: string;
        session?: string;
        error?: string;
      };
    };
    const opened = await ask(`init ${first.url}`);
    expect(opened.ok).toBe(true);
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await ask(`call ${i} 1`));
    first.child.kill("SIGKILL");
    await serve(dir, new URL(first.url).port, ["--state-dir", state]);
    for (let i = 0; i < 3; i++) answers.push(await ask(`call ${10 + i} 1`));
    expect(answers).toEqual(["1", "2", "3", "11", "12", "13"].map((text) => ({ ok: true, text })));
    python.stdin?.end();
  }, 120_000);

  it("without --state-dir the restarted gateway answers the old session 404 (the client must initialize again)", async () => {
    const dir = home();
    const first = await serve(dir, 0);
    const client = new Client(
      { name: "restart-test", version: "1.0.0" },
      { versionNegotiation: { mode: "legacy" } },
    );
    const transport = new StreamableHTTPClientTransport(new URL(first.url));
    await client.connect(transport);
    first.child.kill("SIGKILL");
    await serve(dir, new URL(first.url).port);
    await expect(client.callTool({ name: "calc_add", arguments: { a: 1, b: 1 } })).rejects.toThrow(
      /404|not found/i,
    );
    await client.close();
  }, 120_000);
});
