import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { afterAll, describe, expect, it } from "vitest";
import { cliEnv, emptyHome, runCli } from "../helpers/cli.js";
import { startScriptedOpenAI } from "../helpers/model-endpoints.js";

describe("examples/agent-loop", () => {
  it("runs the OpenAI tool-calling loop against an OpenAI-compatible endpoint", async () => {
    // A streaming OpenAI-compatible endpoint: first a tool call, then an answer built from its result.
    const server = await startScriptedOpenAI([
      { toolCalls: [{ id: "c1", name: "mcp_calculator_multiply", arguments: '{"a":12,"b":7}' }] },
      (body) => {
        const tool = (body.messages as { role: string; content: string }[]).find((m) => m.role === "tool");
        return { text: `The answer is ${tool?.content}.` };
      },
    ]);
    const requests = server.requests as { tools?: unknown[] }[];
    await using _ = { [Symbol.asyncDispose]: () => server.close() };
    const output = await new Promise<{ code: number | null; stdout: string }>((done) => {
      const child = spawn(process.execPath, [resolve("dist/examples/agent-loop.js"), "12 times 7?"], {
        env: {
          PATH: process.env.PATH ?? "",
          OPENAI_BASE_URL: `${server.url}/v1`,
          OPENAI_API_KEY: "test-key",
          OPENAI_MODEL: "fake",
        },
      });
      let stdout = "";
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
        stdout += chunk;
      });
      child.on("close", (code) => done({ code, stdout }));
    });
    expect(output).toEqual({ code: 0, stdout: "The answer is 84.\n" });
    expect(requests).toHaveLength(2);
    const offered = (requests[0]?.tools ?? []) as { function: { name: string } }[];
    expect(offered.map((t) => t.function.name)).toContain("mcp_calculator_multiply");
  });

  it("says what to set and exits 0 when no endpoint is configured", async () => {
    const output = await new Promise<{ code: number | null; stderr: string }>((done) => {
      const child = spawn(process.execPath, [resolve("dist/examples/agent-loop.js")], {
        env: { PATH: process.env.PATH ?? "" },
      });
      let stderr = "";
      child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
        stderr += chunk;
      });
      child.on("close", (code) => done({ code, stderr }));
    });
    expect(output.code).toBe(0);
    expect(output.stderr).toContain("Set OPENAI_BASE_URL and OPENAI_API_KEY");
  });
});

describe("bundled example servers and configs", () => {
  const home = emptyHome();
  const notesDir = mkdtempSync(join(tmpdir(), "mcp-bridge-notes-"));
  afterAll(() => {
    rmSync(home, { recursive: true, force: true });
    rmSync(notesDir, { recursive: true, force: true });
  });
  const env = cliEnv(home, { MCP_BRIDGE_NOTES_DIR: notesDir });
  const cli = (args: string[]) => runCli(args, { cwd: home, env });

  it.each(["mcp.json", "mcp.toml", "mcp.array.toml"])(
    "examples/%s is valid and both servers connect",
    async (file) => {
      const config = resolve("examples", file);
      const validate = await cli(["config", "validate", "-c", config, "--json"]);
      expect(JSON.parse(validate.stdout)).toMatchObject({ valid: true, servers: ["calculator", "notes"] });
      const status = await cli(["status", "-c", config, "--json"]);
      expect(status.code).toBe(0);
      expect(JSON.parse(status.stdout).servers).toEqual([
        expect.objectContaining({ name: "calculator", state: "connected", tools: 5 }),
        expect.objectContaining({ name: "notes", state: "connected", tools: 4 }),
      ]);
    },
  );

  it("calculator and notes tools work through the CLI", async () => {
    const config = resolve("examples/mcp.json");
    const call = async (...args: string[]) => cli(["call", ...args, "-c", config]);
    expect((await call("mcp_calculator_subtract", "a=5", "b=8")).stdout).toBe("-3\n");
    expect((await call("mcp_calculator_multiply", "a=1.5", "b=4")).stdout).toBe("6\n");
    expect((await call("calculator/greet", "name=Ada")).stdout).toBe("Hello, Ada!\n");
    expect((await call("mcp_notes_list")).stdout).toBe("No notes yet.\n");
    const created = await call("mcp_notes_create", "title=Groceries", "body=milk, eggs");
    const id = /Created note (\S+):/.exec(created.stdout)?.[1] ?? "";
    expect(id).not.toBe("");
    // The config's ${MCP_BRIDGE_NOTES_DIR:-} reached the server as NOTES_DIR.
    expect(existsSync(join(notesDir, "notes.json"))).toBe(true);
    expect((await call("mcp_notes_list")).stdout).toBe(`${id}  Groceries\n`);
    expect((await call("mcp_notes_read", `id=${id}`)).stdout).toBe("# Groceries\n\nmilk, eggs\n");
    expect((await call("mcp_notes_delete", `id=${id}`)).code).toBe(0);
    const gone = await call("mcp_notes_read", `id=${id}`);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain(`No note with id ${id}`);
    // Ten CLI processes one after another: on a loaded machine each may take a few seconds.
  }, 120_000);

  it("notes offers its notes as resources and a summarize prompt", async () => {
    const client = new Client({ name: "examples-test", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [resolve("dist/examples/servers/notes.js")],
        env: { NOTES_DIR: notesDir },
        stderr: "pipe",
      }),
    );
    try {
      await client.callTool({ name: "create", arguments: { title: "Plan", body: "ship it" } });
      const { resources } = await client.listResources();
      const plan = resources.find((r) => r.name === "Plan");
      expect(plan?.uri).toMatch(/^note:\/\//);
      const read = await client.readResource({ uri: plan?.uri ?? "" });
      expect(read.contents[0]).toMatchObject({ mimeType: "text/markdown", text: "# Plan\n\nship it" });
      const prompt = await client.getPrompt({ name: "summarize" });
      expect(prompt.messages[0]?.content).toMatchObject({
        type: "text",
        text: expect.stringContaining("Plan: ship it"),
      });
    } finally {
      await client.close();
    }
  });
});
