import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { stdioEntry, waitForExit } from "../fixtures/servers/index.js";
import { CLI, cliEnv, emptyHome, runCli } from "../helpers/cli.js";
import { type ScriptedEndpoint, startScriptedOpenAI } from "../helpers/model-endpoints.js";
import { descendants, TmuxSession } from "../helpers/tmux.js";

const endpoints: ScriptedEndpoint[] = [];
afterAll(async () => {
  await Promise.all(endpoints.map((e) => e.close()));
});

async function model(script: Parameters<typeof startScriptedOpenAI>[0]) {
  const endpoint = await startScriptedOpenAI(script);
  endpoints.push(endpoint);
  return endpoint;
}

/** A project with a config of two fixture servers: calc (plain tools) and slow (sleep, progress). */
function project(extra: Record<string, unknown> = {}) {
  const dir = emptyHome();
  const config = join(dir, "mcp.json");
  const write = (more: Record<string, unknown> = {}) =>
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: { calc: stdioEntry("normal"), slow: stdioEntry("slow-tool"), ...extra, ...more },
      }),
    );
  write();
  return { dir, config, write };
}

const modelEnv = (endpoint: ScriptedEndpoint) => ({
  OPENAI_BASE_URL: `${endpoint.url}/v1`,
  OPENAI_MODEL: "scripted",
});

describe("mcp-bridge chat -p (non-interactive)", () => {
  it("prints the answer on stdout, tool lines on stderr, and exits 0", async () => {
    const endpoint = await model([
      { text: "Let me add. ", toolCalls: [{ id: "c1", name: "mcp_calc_add", arguments: '{"a":5,"b":3}' }] },
      (body) => ({ text: JSON.stringify(body).includes('"content":"8"') ? "It is 8." : "no result" }),
    ]);
    const { dir, config } = project();
    const run = await runCli(["chat", "-c", config, "-p", "what is 5+3?", "--yes"], {
      cwd: dir,
      env: cliEnv(dir, modelEnv(endpoint)),
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("Let me add. It is 8.\n");
    expect(run.stderr).toMatch(/⚙ calc › add/);
    expect(run.stderr).toMatch(/✓ calc › add \d+ ms 8/);
  });

  it("--json prints one document with the whole transcript", async () => {
    const endpoint = await model([{ text: "Hi there." }]);
    const { dir, config } = project();
    const run = await runCli(["chat", "-c", config, "-p", "hello", "--json"], {
      cwd: dir,
      env: cliEnv(dir, modelEnv(endpoint)),
    });
    expect(run.code).toBe(0);
    const doc = JSON.parse(run.stdout);
    expect(doc).toMatchObject({
      text: "Hi there.",
      messages: [{ role: "user", content: "hello" }, { role: "assistant" }],
    });
  });

  it("without a terminal, a tool that may change things is not run unless --yes", async () => {
    const endpoint = await model([
      { toolCalls: [{ id: "c1", name: "mcp_calc_add", arguments: '{"a":1,"b":1}' }] },
      (body) => ({ text: JSON.stringify(body).includes("declined") ? "Not run." : "Ran." }),
    ]);
    const { dir, config } = project();
    const run = await runCli(["chat", "-c", config, "-p", "add"], {
      cwd: dir,
      env: cliEnv(dir, modelEnv(endpoint)),
    });
    expect(run.stdout).toBe("Not run.\n");
    expect(run.stderr).toContain("use --yes");
  });

  it("a model endpoint that is down or refuses the key is one clear error line and exit 1", async () => {
    const down = await model([]);
    await down.close();
    const { dir, config } = project();
    const refused = await runCli(["chat", "-c", config, "-p", "hi"], {
      cwd: dir,
      env: cliEnv(dir, modelEnv(down)),
    });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/error: Cannot reach the OpenAI-compatible endpoint/);
    const unauthorized = await model([{ status: 401 }]);
    const denied = await runCli(["chat", "-c", config, "-p", "hi"], {
      cwd: dir,
      env: cliEnv(dir, modelEnv(unauthorized)),
    });
    expect(denied.code).toBe(1);
    expect(denied.stderr).toMatch(/HTTP 401.*Check the API key/);
  });

  it("says which variable to set when no model is configured", async () => {
    const { dir, config } = project();
    const run = await runCli(["chat", "-c", config, "-p", "hi"], { cwd: dir, env: cliEnv(dir) });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/OPENAI_API_KEY/);
  });
});

describe("mcp-bridge chat in a real terminal (tmux)", () => {
  const sessions: TmuxSession[] = [];
  afterEach(() => {
    for (const session of sessions.splice(0)) session.close();
  });

  function chat(config: string, dir: string, endpoint: ScriptedEndpoint, flags: string[] = []) {
    const session = new TmuxSession([process.execPath, resolve(CLI), "chat", "-c", config, ...flags], {
      cwd: dir,
      env: { ...cliEnv(dir, modelEnv(endpoint)), TERM: "xterm-256color" },
    });
    sessions.push(session);
    return session;
  }

  it("streams the answer with tool lines, shows /mcp, reloads a changed config, and leaves no process", async () => {
    const endpoint = await model([
      { text: "Adding.", toolCalls: [{ id: "c1", name: "mcp_calc_add", arguments: '{"a":20,"b":22}' }] },
      { text: "The sum is 42." },
    ]);
    const { dir, config, write } = project();
    const term = chat(config, dir, endpoint, ["--yes"]);
    await term.waitFor(/slow: connected/);
    await term.waitFor(/calc: connected, 6 tools/);
    term.type("what is 20 + 22?");
    const screen = await term.waitFor(/The sum is 42\./);
    expect(screen).toMatch(/⚙ calc › add \{"a":20,"b":22\}/);
    expect(screen).toMatch(/✓ calc › add \d+ ms 42/);

    term.type("/mcp");
    await term.waitFor(/SERVER\s+TRANSPORT\s+STATE[\s\S]*calc\s+stdio\s+connected\s+6/);
    write({ extra: stdioEntry("normal") });
    term.type("/mcp reload");
    await term.waitFor(/added: extra; unchanged: calc, slow/);

    const pid = term.panePid();
    const children = descendants(pid);
    expect(children.length).toBeGreaterThanOrEqual(3);
    term.keys("C-d");
    expect(await waitForExit([pid, ...children], 10_000)).toEqual([]);
  }, 60_000);

  it("asks before running a tool that may change things; a refusal goes back to the model", async () => {
    const endpoint = await model([
      { toolCalls: [{ id: "c1", name: "mcp_calc_add", arguments: '{"a":1,"b":2}' }] },
      (body) => ({ text: JSON.stringify(body).includes("declined") ? "Understood, not run." : "It ran." }),
    ]);
    const { dir, config } = project();
    const term = chat(config, dir, endpoint);
    await term.waitFor(/calc: connected/);
    term.type("add 1 and 2");
    await term.waitFor(
      /Run calc › add \{"a":1,"b":2\}\? It may change things\. \[y\]es \/ \[n\]o \/ \[a\]lways \/ \[f\]ull arguments:/,
    );
    term.type("n", false);
    await term.waitFor(/Understood, not run\./);
  }, 60_000);

  it("Ctrl-C cancels a running tool call (the server hears notifications/cancelled) and the chat goes on", async () => {
    const endpoint = await model([
      { toolCalls: [{ id: "s1", name: "mcp_slow_sleep", arguments: '{"ms":30000}' }] },
      { toolCalls: [{ id: "s2", name: "mcp_slow_cancelled", arguments: "{}" }] },
      (body) => {
        const messages = body.messages as { role: string; content: string }[];
        return { text: `cancelled=${messages.filter((m) => m.role === "tool").at(-1)?.content}` };
      },
    ]);
    const { dir, config } = project();
    const term = chat(config, dir, endpoint, ["--yes"]);
    await term.waitFor(/slow: connected/);
    term.type("sleep please");
    await term.waitFor(/⚙ slow › sleep/);
    term.keys("C-c");
    await term.waitFor(/\(cancelled\)/);
    term.type("how many calls were cancelled?");
    await term.waitFor(/cancelled=1/);
    expect(term.alive()).toBe(true);
    term.type("/exit");
    await expect.poll(() => term.alive(), { timeout: 10_000 }).toBe(false);
  }, 60_000);
});

describe("mcp-bridge chat: resources and prompts from the servers", () => {
  const everything = {
    command: process.execPath,
    args: [resolve("node_modules/@modelcontextprotocol/server-everything/dist/index.js"), "stdio"],
  };

  it("@SERVER:URI attaches a resource; /mcp resources and /mcp prompts list them; /SERVER:PROMPT inserts a prompt", async () => {
    const endpoint = await model([
      (body) => ({
        text: JSON.stringify(body).includes("Attached resource everything:demo://")
          ? "Got it."
          : "Nothing attached.",
      }),
      (body) => ({
        text: JSON.stringify(body).includes("This is a simple prompt") ? "Prompt seen." : "No prompt.",
      }),
    ]);
    const dir = emptyHome();
    const config = join(dir, "mcp.json");
    writeFileSync(config, JSON.stringify({ mcpServers: { everything } }));
    const child = spawn(process.execPath, [resolve(CLI), "chat", "-c", config], {
      cwd: dir,
      env: cliEnv(dir, modelEnv(endpoint)),
      stdio: ["pipe", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      out += chunk;
    });
    const exited = new Promise<number | null>((done) => child.on("close", done));
    child.stdin.end(
      [
        "/mcp resources",
        "/mcp prompts",
        "read this @everything:demo://resource/static/document/architecture.md please",
        "/everything:simple-prompt",
        "what did the prompt say?",
        "",
      ].join("\n"),
    );
    const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
    expect(await exited).toBe(0);
    clearTimeout(timer);
    expect(out).toMatch(/@everything:demo:\/\/resource\/static\/document\//);
    expect(out).toMatch(/\/everything:simple-prompt/);
    expect(out).toContain("(attached everything:demo://resource/static/document/architecture.md)");
    expect(out).toContain("Got it.");
    expect(out).toMatch(/inserted 1 message of everything:simple-prompt/);
    expect(out).toContain("Prompt seen.");
  }, 60_000);
});
