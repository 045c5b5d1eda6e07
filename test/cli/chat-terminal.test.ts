import { writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { fixturePath, stdioEntry } from "../fixtures/servers/index.js";
import { CLI, cliEnv, emptyHome } from "../helpers/cli.js";
import { startScriptedAnthropic, startScriptedOpenAI } from "../helpers/model-endpoints.js";
import { TmuxSession } from "../helpers/tmux.js";

/**
 * The chat in a real terminal, where the person answers: the Anthropic provider against a scripted
 * endpoint streaming real SSE, servers' sampling requests and questions, and several questions at once.
 */

/** A server that asks for an API key through a form (not in the FixtureName list). */
const asksForSecret = join(dirname(fixturePath("normal")), "asks-for-secret.js");
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  await Promise.all(closers.map((close) => close()));
});

describe("mcp-bridge chat in a real terminal (tmux): Anthropic, sampling, several questions", () => {
  const sessions: TmuxSession[] = [];
  afterEach(() => {
    for (const session of sessions.splice(0)) session.close();
  });

  it("streams Anthropic SSE with a tool call; the person approves one sampling request and declines the next", async () => {
    const toolResults = (body: Record<string, unknown>) =>
      JSON.stringify((body.messages as { role: string; content: unknown }[]).at(-1)?.content);
    const ask = {
      id: "toolu_1",
      name: "mcp_sampler_ask",
      arguments: '{"prompt":"Name a colour","maxTokens":42}',
    };
    const endpoint = await startScriptedAnthropic([
      { text: "Asking the sampler.", toolCalls: [ask] },
      // The sampling request, answered by the same model (and endpoint) as the chat.
      (body) => ({ text: body.max_tokens === 42 ? "Teal." : "wrong cap" }),
      (body) => ({ text: toolResults(body).includes("Teal.") ? "The server heard Teal." : "no answer" }),
      { toolCalls: [{ ...ask, id: "toolu_2" }] },
      (body) => ({ text: toolResults(body).includes("declined") ? "The sampling was refused." : "it ran" }),
    ]);
    closers.push(() => endpoint.close());
    const dir = emptyHome();
    const config = join(dir, "mcp.json");
    writeFileSync(
      config,
      JSON.stringify({ mcpServers: { sampler: { ...stdioEntry("sampler"), sampling: true, trust: true } } }),
    );
    const flags = ["--provider", "anthropic", "--base-url", endpoint.url, "--model", "claude-scripted"];
    const term = new TmuxSession([process.execPath, resolve(CLI), "chat", "-c", config, ...flags], {
      cwd: dir,
      env: { ...cliEnv(dir, { ANTHROPIC_API_KEY: "sk-ant-test" }), TERM: "xterm-256color" },
      width: 100,
    });
    sessions.push(term);
    await term.waitFor(/mcp-bridge chat with claude-scripted \(anthropic\)/);
    await term.waitFor(/sampler: connected, 1 tool\b/);
    term.type("ask the sampler");
    let screen = await term.waitFor(/Let sampler use the model\? \[y\]es \/ \[n\]o:/);
    expect(screen).toMatch(
      /Asking the sampler\.\n\s+⚙ sampler › ask \{"prompt":"Name a colour","maxTokens":42\}/,
    );
    expect(screen).toMatch(
      /⟳ sampler asks the model \(sampling, at most 42 tokens\):\n\s+system: You are a fixture\.\n\s+user: Name a colour/,
    );
    term.type("y");
    screen = await term.waitFor(/The server heard Teal\./);
    expect(screen).toMatch(/✓ sampling for sampler: Teal\./);
    expect(screen).toMatch(/✓ sampler › ask \d+ ms/);

    term.type("once more");
    await term.waitFor(
      /Let sampler use the model\?[^\n]*\n[\s\S]*Let sampler use the model\? \[y\]es \/ \[n\]o:/,
    );
    term.type("n");
    screen = await term.waitFor(/The sampling was refused\./);
    expect(screen).toMatch(/sampling for sampler declined/);
    // The key went in Anthropic's header, and the sampling request carried the server's cap.
    expect(endpoint.headers[0]?.["x-api-key"]).toBe("sk-ant-test");
    expect(endpoint.requests[1]).toMatchObject({ max_tokens: 42, system: "You are a fixture." });
    term.type("/exit");
    await expect.poll(() => term.alive(), { timeout: 10_000 }).toBe(false);
  }, 90_000);

  it("two tool calls of one reply that both need a yes are asked one after the other", async () => {
    const endpoint = await startScriptedOpenAI([
      {
        toolCalls: [
          { id: "a1", name: "mcp_calc_add", arguments: '{"a":1,"b":2}' },
          { id: "a2", name: "mcp_calc_add", arguments: '{"a":3,"b":4}' },
        ],
      },
      (body) => {
        const tools = (body.messages as { role: string; content: string }[]).filter((m) => m.role === "tool");
        return { text: `sums: ${tools.map((m) => m.content).join(" and ")}` };
      },
    ]);
    closers.push(() => endpoint.close());
    const dir = emptyHome();
    const config = join(dir, "mcp.json");
    writeFileSync(config, JSON.stringify({ mcpServers: { calc: stdioEntry("normal") } }));
    const term = new TmuxSession([process.execPath, resolve(CLI), "chat", "-c", config], {
      cwd: dir,
      env: {
        ...cliEnv(dir, { OPENAI_BASE_URL: `${endpoint.url}/v1`, OPENAI_MODEL: "scripted" }),
        TERM: "xterm-256color",
      },
      width: 100,
    });
    sessions.push(term);
    await term.waitFor(/calc: connected/);
    term.type("add twice");
    const question = (args: string) =>
      new RegExp(
        `Run calc › add ${args}\\? It may change things\\. \\[y\\]es / \\[n\\]o / \\[a\\]lways / \\[f\\]ull arguments: $`,
        "m",
      );
    await term.waitFor(question('\\{"a":1,"b":2\\}'));
    // One key answers: no Enter.
    term.type("y", false);
    await term.waitFor(question('\\{"a":3,"b":4\\}'));
    term.type("y", false);
    await term.waitFor(/sums: 3 and 7/);
    term.type("/exit");
    await expect.poll(() => term.alive(), { timeout: 10_000 }).toBe(false);
  }, 90_000);

  it("approval by one key: f shows the full arguments, n declines; the answers stay out of the history", async () => {
    const long = "x".repeat(150);
    const endpoint = await startScriptedOpenAI([
      { toolCalls: [{ id: "e1", name: "calc/echo", arguments: `{"text":"${long}END"}` }] },
      (body) => {
        const tools = (body.messages as { role: string; content: string }[]).filter((m) => m.role === "tool");
        return { text: `result: ${tools.at(-1)?.content.slice(0, 30)}` };
      },
    ]);
    closers.push(() => endpoint.close());
    const dir = emptyHome();
    const config = join(dir, "mcp.json");
    writeFileSync(config, JSON.stringify({ mcpServers: { calc: stdioEntry("normal") } }));
    const term = new TmuxSession([process.execPath, resolve(CLI), "chat", "-c", config], {
      cwd: dir,
      env: {
        ...cliEnv(dir, { OPENAI_BASE_URL: `${endpoint.url}/v1`, OPENAI_MODEL: "scripted" }),
        TERM: "xterm-256color",
      },
      width: 100,
    });
    sessions.push(term);
    await term.waitFor(/calc: connected/);
    term.type("echo something");
    await term.waitFor(/\[f\]ull arguments: $/m);
    expect(term.screen()).not.toMatch(/END/);
    term.type("f", false);
    await term.waitFor(/^ {6}"text": "x+END"$/m);
    await term.waitFor(/END"\n {4}\}\nRun calc.*\[f\]ull arguments: $/m);
    term.type("n", false);
    await term.waitFor(/result: The user declined to run cal/);
    // Up at the prompt brings back the message, not an answer to the question.
    await term.waitFor(/^> $/m);
    term.keys("Up");
    await term.waitFor(/^> echo something$/m);
    term.keys("C-u");
    term.type("/exit");
    await expect.poll(() => term.alive(), { timeout: 10_000 }).toBe(false);
  }, 90_000);

  it("a sampling request that runs out of time is taken back from the prompt: the next line is a message again", async () => {
    const endpoint = await startScriptedOpenAI([
      { toolCalls: [{ id: "s1", name: "mcp_sampler_ask", arguments: '{"prompt":"Name a colour"}' }] },
      { text: "The tool gave up." },
      (body) => ({
        text: JSON.stringify(body.messages).includes('"content":"hello"') ? "Hello back." : "lost",
      }),
    ]);
    closers.push(() => endpoint.close());
    const dir = emptyHome();
    const config = join(dir, "mcp.json");
    // The server's sampling request (and the tool call) end after 3 s unanswered.
    const sampler = { ...stdioEntry("sampler"), sampling: true, trust: true, callTimeout: "3s" };
    writeFileSync(config, JSON.stringify({ mcpServers: { sampler } }));
    const term = new TmuxSession([process.execPath, resolve(CLI), "chat", "-c", config], {
      cwd: dir,
      env: {
        ...cliEnv(dir, { OPENAI_BASE_URL: `${endpoint.url}/v1`, OPENAI_MODEL: "scripted" }),
        TERM: "xterm-256color",
      },
      width: 100,
    });
    sessions.push(term);
    await term.waitFor(/sampler: connected/);
    term.type("ask");
    await term.waitFor(/Let sampler use the model\? \[y\]es \/ \[n\]o:/);
    await term.waitFor(/sampler withdrew its sampling request/);
    await term.waitFor(/The tool gave up\./);
    term.type("hello");
    await term.waitFor(/Hello back\./);
  }, 90_000);

  it("a server's form question during a tool call is asked at the prompt and the answer goes back", async () => {
    const endpoint = await startScriptedOpenAI([
      { toolCalls: [{ id: "l1", name: "mcp_secret_login", arguments: "{}" }] },
      (body) => {
        const tools = (body.messages as { role: string; content: string }[]).filter((m) => m.role === "tool");
        return { text: `server got: ${tools.at(-1)?.content}` };
      },
    ]);
    closers.push(() => endpoint.close());
    const dir = emptyHome();
    const config = join(dir, "mcp.json");
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: { secret: { ...stdioEntry("normal"), args: [asksForSecret], trust: true } },
      }),
    );
    const term = new TmuxSession([process.execPath, resolve(CLI), "chat", "-c", config], {
      cwd: dir,
      env: {
        ...cliEnv(dir, { OPENAI_BASE_URL: `${endpoint.url}/v1`, OPENAI_MODEL: "scripted" }),
        TERM: "xterm-256color",
      },
      width: 100,
    });
    sessions.push(term);
    await term.waitFor(/secret: connected/);
    term.type("log in");
    await term.waitFor(/Server "secret" asks: Give me your API key\n\s*Answer it\? \[y\/N\] $/m);
    term.type("y");
    await term.waitFor(/API key: $/m);
    term.type("abc123");
    await term.waitFor(/server got: \{"action":"accept","content":\{"apiKey":"abc123"\}\}/);
  }, 90_000);
});
