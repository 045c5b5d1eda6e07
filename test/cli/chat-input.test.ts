import { lstatSync, mkdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { stdioEntry } from "../fixtures/servers/index.js";
import { CLI, cliEnv, emptyHome } from "../helpers/cli.js";
import { type ScriptedEndpoint, startScriptedOpenAI } from "../helpers/model-endpoints.js";
import { TmuxSession } from "../helpers/tmux.js";

/** The chat's input in a real terminal: lines that go on, and a history kept between sessions. */

const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  await Promise.all(closers.map((close) => close()));
});

/** A model that answers each message with what it got, as JSON. */
async function echoModel(): Promise<ScriptedEndpoint> {
  const reply = (body: Record<string, unknown>) => {
    const users = (body.messages as { role: string; content: string }[]).filter((m) => m.role === "user");
    return { text: `got ${JSON.stringify(users.at(-1)?.content)}` };
  };
  const endpoint = await startScriptedOpenAI([reply, reply, reply]);
  closers.push(() => endpoint.close());
  return endpoint;
}

describe("mcp-bridge chat input (tmux)", () => {
  const sessions: TmuxSession[] = [];
  afterEach(() => {
    for (const session of sessions.splice(0)) session.close();
  });

  function chat(home: string, endpoint: ScriptedEndpoint): TmuxSession {
    const config = join(home, "mcp.json");
    writeFileSync(config, JSON.stringify({ mcpServers: { calc: stdioEntry("normal") } }));
    const term = new TmuxSession([process.execPath, resolve(CLI), "chat", "-c", config], {
      cwd: home,
      env: {
        ...cliEnv(home, { OPENAI_BASE_URL: `${endpoint.url}/v1`, OPENAI_MODEL: "scripted" }),
        TERM: "xterm-256color",
      },
      width: 100,
    });
    sessions.push(term);
    return term;
  }

  it("a trailing backslash and Alt-Enter go on to the next line; the message is sent whole", async () => {
    const home = emptyHome();
    closers.push(async () => rmSync(home, { recursive: true, force: true }));
    const term = chat(home, await echoModel());
    await term.waitFor(/calc: connected/);
    term.type("first \\");
    await term.waitFor(/^… $/m);
    term.type("second", false);
    term.keys("M-Enter");
    await term.waitFor(/^… second\n… $/m);
    term.type("third");
    await term.waitFor(/got "first \\nsecond\\nthird"/);
    term.type("/exit");
    await expect.poll(() => term.alive(), { timeout: 10_000 }).toBe(false);
  }, 60_000);

  it("the history is kept in a 0600 file in the state folder and comes back in the next session", async () => {
    const home = emptyHome();
    closers.push(async () => rmSync(home, { recursive: true, force: true }));
    const endpoint = await echoModel();
    const first = chat(home, endpoint);
    await first.waitFor(/calc: connected/);
    first.type("remember this line");
    await first.waitFor(/got "remember this line"/);
    first.type(" a line with a leading space is not kept");
    await first.waitFor(/got "a line with/);
    first.type("/exit");
    await expect.poll(() => first.alive(), { timeout: 10_000 }).toBe(false);
    const file = join(home, ".local", "state", "mcp-bridge", "chat-history");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(file, "..")).mode & 0o077).toBe(0);
    const saved = readFileSync(file, "utf8");
    expect(saved).toContain("remember this line\n");
    expect(saved).not.toContain("leading space");

    const second = chat(home, endpoint);
    await second.waitFor(/calc: connected/);
    await second.waitFor(/^> $/m);
    second.keys("Up");
    await second.waitFor(/^> \/exit$/m);
    second.keys("Up");
    await second.waitFor(/^> remember this line$/m);
    second.keys("C-u");
    second.type("/exit");
    await expect.poll(() => second.alive(), { timeout: 10_000 }).toBe(false);
  }, 90_000);

  it("a history file planted as a symbolic link is neither read nor written through", async () => {
    const home = emptyHome();
    closers.push(async () => rmSync(home, { recursive: true, force: true }));
    const folder = join(home, ".local", "state", "mcp-bridge");
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    const victim = join(home, "victim.txt");
    writeFileSync(victim, "secret planted history line\n");
    symlinkSync(victim, join(folder, "chat-history"));
    const term = chat(home, await echoModel());
    await term.waitFor(/calc: connected/);
    await term.waitFor(/^> $/m);
    term.keys("Up");
    // Nothing came from the link's target.
    await new Promise((done) => setTimeout(done, 500));
    expect(term.screen()).not.toMatch(/planted/);
    term.keys("C-u");
    term.type("hello");
    await term.waitFor(/got "hello"/);
    term.type("/exit");
    await expect.poll(() => term.alive(), { timeout: 10_000 }).toBe(false);
    expect(readFileSync(victim, "utf8")).toBe("secret planted history line\n");
    expect(lstatSync(join(folder, "chat-history")).isSymbolicLink()).toBe(true);
  }, 60_000);
});

describe("mcp-bridge chat feedback (tmux)", () => {
  const sessions: TmuxSession[] = [];
  afterEach(() => {
    for (const session of sessions.splice(0)) session.close();
  });

  it("a spinner with the elapsed time while the model thinks and a tool runs without progress; tokens per turn and session", async () => {
    const endpoint = await startScriptedOpenAI([
      { toolCalls: [{ id: "s1", name: "mcp_slow_sleep", arguments: '{"ms":3000}' }], delayMs: 150 },
      { text: "Slept well.", delayMs: 150 },
      { text: "Again." },
    ]);
    closers.push(() => endpoint.close());
    const home = emptyHome();
    closers.push(async () => rmSync(home, { recursive: true, force: true }));
    const config = join(home, "mcp.json");
    writeFileSync(config, JSON.stringify({ mcpServers: { slow: stdioEntry("slow-tool") } }));
    const term = new TmuxSession([process.execPath, resolve(CLI), "chat", "-c", config, "--yes"], {
      cwd: home,
      env: {
        ...cliEnv(home, { OPENAI_BASE_URL: `${endpoint.url}/v1`, OPENAI_MODEL: "scripted" }),
        TERM: "xterm-256color",
      },
      width: 100,
    });
    sessions.push(term);
    await term.waitFor(/slow: connected/);
    term.type("sleep");
    await term.waitFor(/⚙ slow › sleep/);
    await term.waitFor(/^[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] running… [1-9]s$/m);
    const screen = await term.waitFor(/Slept well\.\n\(tokens: 20 in, 10 out; session: 20 in, 10 out\)/);
    // The spinner is gone once the answer is there.
    expect(screen).not.toMatch(/running… \d+s\n.*Slept/);
    term.type("again");
    await term.waitFor(/Again\.\n\(tokens: 10 in, 5 out; session: 30 in, 15 out\)/);
    term.type("/exit");
    await expect.poll(() => term.alive(), { timeout: 10_000 }).toBe(false);
  }, 60_000);
});

describe("mcp-bridge chat markdown (tmux)", () => {
  const sessions: TmuxSession[] = [];
  afterEach(() => {
    for (const session of sessions.splice(0)) session.close();
  });

  it("headings, bold, lists, code blocks and tables are rendered, and escape sequences in the reply are dropped", async () => {
    const reply = [
      "# Result",
      "Some **bold** words and `code`.",
      "- first",
      "- second",
      "```",
      "let x = 1;",
      "```",
      "| name | value |",
      "|------|-------|",
      "| a | 1 |",
      "| longer | 22 |",
      "done\u001b]0;pwned\u0007",
    ].join("\n");
    const endpoint = await startScriptedOpenAI([{ text: reply }]);
    closers.push(() => endpoint.close());
    const home = emptyHome();
    closers.push(async () => rmSync(home, { recursive: true, force: true }));
    const config = join(home, "mcp.json");
    writeFileSync(config, JSON.stringify({ mcpServers: {} }));
    const term = new TmuxSession([process.execPath, resolve(CLI), "chat", "-c", config], {
      cwd: home,
      env: {
        ...cliEnv(home, { OPENAI_BASE_URL: `${endpoint.url}/v1`, OPENAI_MODEL: "scripted" }),
        TERM: "xterm-256color",
      },
      width: 100,
    });
    sessions.push(term);
    await term.waitFor(/^> $/m);
    term.type("show me");
    // ESC and BEL are dropped: what is left of the title sequence is harmless text.
    const screen = await term.waitFor(/^done\]0;pwned$/m);
    expect(screen).toMatch(/^Result$/m);
    expect(screen).toMatch(/^Some bold words and code\.$/m);
    expect(screen).toMatch(/^• first\n• second$/m);
    expect(screen).toMatch(/^┌──\n│ let x = 1;\n└──$/m);
    expect(screen).toMatch(/^name {3}│ value\n─{7}┼─{6}\na {6}│ 1 *\nlonger │ 22 *$/m);
    expect(screen).not.toMatch(/\*\*|^# |```|\|/m);
    expect(term.title()).not.toMatch(/pwned/);
    term.type("/exit");
    await expect.poll(() => term.alive(), { timeout: 10_000 }).toBe(false);
  }, 60_000);
});
