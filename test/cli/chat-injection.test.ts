import { rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { stdioEntry } from "../fixtures/servers/index.js";
import { CLI, cliEnv, emptyHome } from "../helpers/cli.js";
import { type ScriptedEndpoint, startScriptedOpenAI } from "../helpers/model-endpoints.js";
import { type ProcessRun, runProcess } from "../helpers/process.js";

/**
 * A prompt-injected model tries every way around the chat's approval: other spellings of a tool's
 * name, a tool of a server still connecting, a tool of a server switched off with /mcp disable.
 * Without a terminal nobody can say yes, so none of these may run; a disabled server's tools do not
 * run even with --yes. The model's second request carries the tool results: `add` answers with the
 * sum (100x), which no refusal contains.
 */

const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  await Promise.all(closers.map((close) => close()));
});

/** The model calls the given tools, then reports the tool results it got back. */
async function injectedModel(names: string[]): Promise<ScriptedEndpoint> {
  const endpoint = await startScriptedOpenAI([
    { toolCalls: names.map((name, i) => ({ id: `c${i}`, name, arguments: `{"a":${i},"b":1000}` })) },
    (body) => {
      const tools = (body.messages as { role: string; content: string }[]).filter((m) => m.role === "tool");
      return { text: `results: ${tools.map((m) => m.content).join(" | ")}` };
    },
  ]);
  closers.push(() => endpoint.close());
  return endpoint;
}

function chat(
  servers: Record<string, unknown>,
  endpoint: ScriptedEndpoint,
  lines: string[],
  flags: string[] = [],
): Promise<ProcessRun> {
  const dir = emptyHome();
  closers.push(async () => rmSync(dir, { recursive: true, force: true }));
  const config = join(dir, "mcp.json");
  writeFileSync(config, JSON.stringify({ mcpServers: servers }));
  return runProcess(process.execPath, [resolve(CLI), "chat", "-c", config, ...flags], {
    cwd: dir,
    env: cliEnv(dir, { OPENAI_BASE_URL: `${endpoint.url}/v1`, OPENAI_MODEL: "scripted" }),
    timeoutMs: 45_000,
    label: "chat",
    input: [...lines, ""].join("\n"),
  });
}

const results = (stdout: string) => /results: (.*)/.exec(stdout)?.[1]?.split(" | ") ?? [];

describe("mcp-bridge chat: nothing runs unasked, whatever the model writes", () => {
  it("-p without a terminal: server/tool, server.tool and server:tool are asked about as calc › add (and not run)", async () => {
    const endpoint = await injectedModel(["calc/add", "calc.add", "calc:add", "mcp_calc_add"]);
    const run = await chat({ calc: stdioEntry("normal") }, endpoint, [], ["-p", "add"]);
    expect(run.code).toBe(0);
    const got = results(run.stdout);
    expect(got).toHaveLength(4);
    for (const result of got) {
      expect(result).toMatch(/declined to run calc\/add/);
      expect(result).not.toMatch(/100\d/);
    }
    expect(run.stderr.match(/not running calc › add/g)).toHaveLength(4);
  }, 60_000);

  it("a server switched off with /mcp disable: its tools do not run under any spelling, even with --yes", async () => {
    const endpoint = await injectedModel(["mcp_calc_add", "calc/add", "calc.add"]);
    const run = await chat({ calc: stdioEntry("normal") }, endpoint, ["/mcp disable calc", "add"], ["--yes"]);
    expect(run.code).toBe(0);
    const got = results(run.stdout);
    expect(got).toHaveLength(3);
    for (const result of got) {
      expect(result).toMatch(/not offered.*server "calc" is switched off/);
      expect(result).not.toMatch(/100\d/);
    }
  }, 60_000);

  it("a tool of a server still connecting is waited for, then asked about (no terminal: not run)", async () => {
    const endpoint = await injectedModel(["late/add", "mcp_late_add"]);
    const run = await chat({ late: stdioEntry("slow-start", {}, ["--delay", "2000"]) }, endpoint, ["add"]);
    expect(run.code).toBe(0);
    const got = results(run.stdout);
    expect(got).toHaveLength(2);
    for (const result of got) {
      expect(result).toMatch(/declined to run late\/add/);
      expect(result).not.toMatch(/100\d/);
    }
    expect(run.stdout.match(/not running late › add/g)).toHaveLength(2);
  }, 60_000);
});
