import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { afterEach, describe, expect, it } from "vitest";
import { stdioEntry } from "../fixtures/servers/index.js";
import { CLI, cliEnv, emptyHome, runCli, runCliInProcess, spawnCli } from "../helpers/cli.js";
import { connect, textOf } from "./client.js";

/** Polls an async condition, bounded in time. */
async function until(condition: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * The tools `serve` lists once `expected` is among them: serve answers before its upstream servers are
 * up and announces them with list_changed, so a test lists again until they are there (bounded).
 */
async function toolsOnceListed(client: Client, expected: string, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { tools } = await client.listTools();
    if (tools.some((t) => t.name === expected) || Date.now() > deadline) return tools;
    await new Promise((r) => setTimeout(r, 50));
  }
}

function configDir(): string {
  const home = emptyHome();
  writeFileSync(
    join(home, "mcp.json"),
    JSON.stringify({ mcpServers: { normal: stdioEntry("normal"), slow: stdioEntry("slow-tool") } }),
  );
  return home;
}

const children: ReturnType<typeof spawnCli>[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
});

describe("mcp-bridge serve", () => {
  it("--stdio serves the merged catalog to an MCP client on stdin/stdout", async () => {
    const home = configDir();
    const client = new Client({ name: "gateway-cli-test", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [CLI, "serve", "--stdio", "-c", join(home, "mcp.json")],
        env: cliEnv(home),
        cwd: home,
        stderr: "pipe",
      }),
    );
    try {
      await toolsOnceListed(client, "normal_add");
      const names = (await toolsOnceListed(client, "slow_sleep")).map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(["normal_add", "slow_sleep"]));
      expect(textOf(await client.callTool({ name: "normal_add", arguments: { a: 20, b: 22 } }))).toBe("42");
    } finally {
      await client.close();
    }
  }, 30_000);

  it("--http with a token from the environment: 401 without it, calls with it, SIGTERM drains an in-flight call", async () => {
    const home = configDir();
    const child = spawnCli(["serve", "--http", "0", "--json", "-c", join(home, "mcp.json")], {
      cwd: home,
      env: cliEnv(home, { MCP_BRIDGE_GATEWAY_TOKENS: "cli-secret" }),
    });
    children.push(child);
    const url = await new Promise<string>((resolve, reject) => {
      let out = "";
      const timer = setTimeout(() => reject(new Error("serve did not print its URL")), 20_000);
      child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
        out += chunk;
        const line = out.split("\n").find((l) => l.startsWith("{"));
        if (line) {
          clearTimeout(timer);
          resolve((JSON.parse(line) as { url: string }).url);
        }
      });
    });
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    const denied = await fetch(url, {
      method: "POST",
      body: "{}",
      headers: { "content-type": "application/json" },
    });
    expect(denied.status).toBe(401);
    await using client = await connect(url, "2026-07-28", "cli-secret");
    const call = client.callTool({ name: "slow_sleep", arguments: { ms: 1500 } });
    const readyz = new URL("/readyz", url);
    await until(async () => ((await (await fetch(readyz)).json()) as { inFlight: number }).inFlight > 0);
    child.kill("SIGTERM");
    expect(textOf(await call)).toBe("slept");
    expect(await exited).toBe(143);
  }, 40_000);

  it("--http serves the REST face beside /mcp, behind the same token", async () => {
    const home = configDir();
    const child = spawnCli(["serve", "--http", "0", "--json", "-c", join(home, "mcp.json")], {
      cwd: home,
      env: cliEnv(home, { MCP_BRIDGE_GATEWAY_TOKENS: "cli-secret" }),
    });
    children.push(child);
    const url = await new Promise<string>((resolve, reject) => {
      let out = "";
      const timer = setTimeout(() => reject(new Error("serve did not print its URL")), 20_000);
      child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
        out += chunk;
        const line = out.split("\n").find((l) => l.startsWith("{"));
        if (line) {
          clearTimeout(timer);
          resolve((JSON.parse(line) as { url: string }).url);
        }
      });
    });
    const base = url.replace(/\/mcp$/, "");
    expect((await fetch(`${base}/openapi.json`)).status).toBe(401);
    const auth = { authorization: "Bearer cli-secret" };
    let paths: Record<string, unknown> = {};
    await until(async () => {
      const spec = (await (await fetch(`${base}/openapi.json`, { headers: auth })).json()) as {
        paths: Record<string, unknown>;
      };
      paths = spec.paths;
      return "/tools/normal_add" in paths;
    });
    expect(paths).toHaveProperty(["/tools/normal_add"]);
    const sum = await fetch(`${base}/tools/normal_add`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ a: 20, b: 22 }),
    });
    expect(await sum.json()).toEqual({ text: "42", isError: false, content: [{ type: "text", text: "42" }] });
  }, 40_000);

  /** The tools `serve --stdio` lists with these extra arguments and this config's settings. */
  async function servedTools(args: string[], settings: Record<string, unknown>, expected: string) {
    const home = emptyHome();
    writeFileSync(
      join(home, "mcp.json"),
      JSON.stringify({ settings, mcpServers: { normal: stdioEntry("normal") } }),
    );
    const client = new Client({ name: "gateway-cli-test", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [CLI, "serve", "--stdio", "-c", join(home, "mcp.json"), ...args],
        env: cliEnv(home),
        cwd: home,
        stderr: "pipe",
      }),
    );
    try {
      return await toolsOnceListed(client, expected);
    } finally {
      await client.close();
    }
  }

  it("names tools <server>_<tool> with the upstream's own description: hosts prefix per server themselves", async () => {
    const tools = await servedTools([], { toolNameFormat: "lib_{server}_{tool}" }, "normal_add");
    const add = tools.find((t) => t.name === "normal_add");
    expect(add).toBeDefined();
    expect(add?.description).not.toMatch(/\[MCP:/);
    expect(tools.every((t) => t.name.startsWith("normal_") && t.name.length <= 64)).toBe(true);
  }, 30_000);

  it("--tool-names and the serveToolNameFormat setting choose other names (the flag wins)", async () => {
    const bySetting = await servedTools([], { serveToolNameFormat: "{tool}" }, "add");
    expect(bySetting.map((t) => t.name)).toContain("add");
    const byFlag = await servedTools(
      ["--tool-names", "x_{server}__{tool}"],
      { serveToolNameFormat: "{tool}" },
      "x_normal__add",
    );
    expect(byFlag.map((t) => t.name)).toContain("x_normal__add");
    const home = emptyHome();
    const bad = await runCli(["serve", "--stdio", "--tool-names", "{server}"], {
      cwd: home,
      env: cliEnv(home),
    });
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/--tool-names wants a format containing "\{tool\}"/);
  }, 60_000);

  it("--stdio refuses the flags only --http reads (cluster store, auth, drain...) instead of ignoring them", async () => {
    const home = emptyHome();
    writeFileSync(join(home, "mcp.json"), JSON.stringify({ mcpServers: { normal: stdioEntry("normal") } }));
    writeFileSync(join(home, "secret"), "x".repeat(40), { mode: 0o600 });
    const cases: [string[], string][] = [
      [["--store", "redis://127.0.0.1:1"], "store"],
      [["--cluster-secret-file", "secret"], "cluster-secret-file"],
      [["--advertise-url", "http://127.0.0.1:1/mcp"], "advertise-url"],
      [["--replica-id", "r1"], "replica-id"],
      [["--drain", "5s"], "drain"],
      [["--session-idle", "1m"], "session-idle"],
      [["--max-body", "1000"], "max-body"],
      [["--auth", "tokens.json"], "auth"],
      [["--admin-token-env", "ADMIN"], "admin-token-env"],
    ];
    const runs = await Promise.all(
      cases.map(([flags]) =>
        runCliInProcess(["serve", "--stdio", "-c", join(home, "mcp.json"), ...flags], {
          cwd: home,
          env: cliEnv(home),
        }),
      ),
    );
    for (const [index, run] of runs.entries()) {
      const flag = cases[index]?.[1];
      expect(run.code, `--${flag}`).toBe(2);
      expect(run.stderr).toContain(`--${flag} applies to serve --http only`);
      expect(run.stdout).toBe("");
    }
  });

  it("--stdio forwards an MCP Apps tool as sent and reads its unlisted ui:// resource", async () => {
    const home = emptyHome();
    writeFileSync(
      join(home, "mcp.json"),
      JSON.stringify({ mcpServers: { up: stdioEntry("returns-scripted") } }),
    );
    const client = new Client({ name: "gateway-cli-test", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [CLI, "serve", "--stdio", "-c", join(home, "mcp.json")],
        env: cliEnv(home),
        cwd: home,
        stderr: "pipe",
      }),
    );
    try {
      const app = (await toolsOnceListed(client, "up_app")).find((t) => t.name === "up_app");
      expect(app).toEqual({
        name: "up_app",
        title: "An app",
        description: "A tool with a UI",
        inputSchema: { type: "object" },
        _meta: {
          ui: { resourceUri: "ui://scripted/app.html" },
          "vendor.example/key": { kept: true },
          "io.github.mcp-bridge/origin": { server: "up", tool: "app" },
        },
        icons: [{ src: "https://example.com/app.png", mimeType: "image/png", sizes: ["48x48"] }],
        execution: { taskSupport: "forbidden" },
      });
      const read = await client.readResource({ uri: "ui://scripted/app.html" });
      expect(read.contents[0]).toMatchObject({
        mimeType: "text/html;profile=mcp-app",
        _meta: { ui: { prefersBorder: true } },
      });
      const failed = {
        content: [{ type: "text", text: "no" }],
        structuredContent: { why: "quota" },
        isError: true,
      };
      await client.callTool({
        name: "up_script",
        arguments: { tools: [{ name: "t", inputSchema: { type: "object" } }], result: failed },
      });
      expect(await client.callTool({ name: "up_app", arguments: {} })).toEqual(failed);
    } finally {
      await client.close();
    }
  }, 30_000);

  it("refuses to bind beyond loopback without auth", async () => {
    const home = configDir();
    const run = await runCli(["serve", "--http", "0.0.0.0:0", "-c", join(home, "mcp.json")], {
      cwd: home,
      env: cliEnv(home),
    });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/without auth/);
  }, 30_000);
});
