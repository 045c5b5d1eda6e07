import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { stdioEntry } from "../fixtures/servers/index.js";
import { CLI, cliEnv, emptyHome } from "../helpers/cli.js";
import { type ScriptedEndpoint, startScriptedOpenAI } from "../helpers/model-endpoints.js";
import { type OAuthTestServer, startOAuthServer } from "../helpers/oauth-server.js";

/**
 * The chat's hold on its servers: `/mcp restart`, `/mcp auth` (the OAuth login of `auth login`,
 * then a restart), per-server `approve`, and servers' sampling requests shown to the person.
 * Lines are piped in; the chat answers them one after another and leaves after the last.
 */

const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  await Promise.all(closers.map((close) => close()));
});

async function model(script: Parameters<typeof startScriptedOpenAI>[0]): Promise<ScriptedEndpoint> {
  const endpoint = await startScriptedOpenAI(script);
  closers.push(() => endpoint.close());
  return endpoint;
}

interface ChatRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `mcp-bridge chat` with piped lines. `onOutput` sees stdout as it grows (to act on what the
 * chat prints, as a person would); the run is bounded in time.
 */
function chat(
  servers: Record<string, unknown>,
  endpoint: ScriptedEndpoint,
  lines: string[],
  options: { flags?: string[]; onOutput?: (stdout: string) => void; env?: Record<string, string> } = {},
): Promise<ChatRun> {
  const dir = emptyHome();
  const config = join(dir, "mcp.json");
  writeFileSync(config, JSON.stringify({ mcpServers: servers }));
  const child = spawn(process.execPath, [resolve(CLI), "chat", "-c", config, ...(options.flags ?? [])], {
    cwd: dir,
    env: cliEnv(dir, {
      OPENAI_BASE_URL: `${endpoint.url}/v1`,
      OPENAI_MODEL: "scripted",
      MCP_BRIDGE_NO_BROWSER: "1",
      ...options.env,
    }),
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
    options.onOutput?.(stdout);
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  child.stdin.end([...lines, ""].join("\n"));
  return new Promise((done, fail) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      fail(new Error(`chat did not finish in time\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, 45_000);
    child.on("close", (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
  });
}

describe("mcp-bridge chat: /mcp restart and /mcp auth", () => {
  it("/mcp restart SERVER starts a new process whose tools the model calls; a typo names the closest server", async () => {
    const endpoint = await model([
      { toolCalls: [{ id: "c1", name: "mcp_calc_add", arguments: '{"a":20,"b":22}' }] },
      (body) => ({ text: JSON.stringify(body).includes('"content":"42"') ? "Still 42." : "broken" }),
    ]);
    const run = await chat(
      { calc: stdioEntry("normal") },
      endpoint,
      ["/mcp restart calc", "/mcp restart calx", "add"],
      {
        flags: ["--yes"],
      },
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/restarting calc\.\.\.\n[\s\S]*calc: restarted \(pid \d+\)/);
    expect(run.stdout).toMatch(/error: Cannot restart "calx": no such server .*did you mean "calc"\?/);
    expect(run.stdout).toContain("Still 42.");
  }, 60_000);

  it("/mcp auth SERVER runs the OAuth login inside the chat, then the server connects with the new token", async () => {
    const oauth: OAuthTestServer = await startOAuthServer();
    closers.push(() => oauth.close());
    const endpoint = await model([
      { toolCalls: [{ id: "r1", name: "mcp_remote_add", arguments: '{"a":2,"b":40}' }] },
      (body) => ({ text: JSON.stringify(body).includes('"content":"42"') ? "Remote says 42." : "no result" }),
    ]);
    let visited: Promise<Response> | undefined;
    const run = await chat(
      { remote: { type: "http", url: oauth.url } },
      endpoint,
      ["/mcp auth remote", "add remotely"],
      {
        flags: ["--yes"],
        // The "browser": follows the authorization server's redirect back to the chat's loopback callback.
        onOutput: (stdout) => {
          const url = /Open this URL to log in:\s+(\S+)/.exec(stdout)?.[1];
          if (url && !visited) visited = fetch(url);
        },
      },
    );
    expect(run.code).toBe(0);
    expect((await visited)?.status).toBe(200);
    // Before the login the server was refused, and the chat said how to log in.
    expect(run.stdout).toMatch(/remote: failed: .*requires authorization/);
    expect(run.stdout).toContain("(if it needs a login: /mcp auth remote)");
    expect(run.stdout).toMatch(/logged in to remote; the token is stored in .+ \(mode 0600\)/);
    expect(run.stdout).toMatch(/remote: restarted/);
    expect(run.stdout).toContain("Remote says 42.");
    expect(oauth.issuedTokens).toHaveLength(1);
    expect(run.stdout + run.stderr).not.toContain(oauth.issuedTokens[0]);
  }, 60_000);
});

describe("mcp-bridge chat: per-server trust", () => {
  const everything = {
    command: process.execPath,
    args: [resolve("node_modules/@modelcontextprotocol/server-everything/dist/index.js"), "stdio"],
  };

  it("without a terminal, a trusted server's tool runs and an untrusted server's read-only tool does not", async () => {
    const endpoint = await model([
      {
        toolCalls: [
          { id: "e1", name: "mcp_everything_echo", arguments: '{"message":"hi"}' },
          { id: "c1", name: "mcp_calc_add", arguments: '{"a":1,"b":2}' },
        ],
      },
      (body) => {
        const tools = (body.messages as { role: string; content: string }[]).filter((m) => m.role === "tool");
        return { text: `results: ${tools.map((m) => m.content).join(" | ")}` };
      },
    ]);
    const run = await chat(
      // echo declares readOnlyHint, which runs at once by default; add declares nothing and would ask.
      { everything: { ...everything, trust: false }, calc: { ...stdioEntry("normal"), trust: true } },
      endpoint,
      [],
      { flags: ["-p", "echo and add"] },
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^results: .*declined.* \| 3\n$/);
    expect(run.stderr).toMatch(
      /not running everything › echo: it says it only reads, and its server has trust = false/,
    );
  }, 60_000);
});

describe("mcp-bridge chat: a server's sampling request", () => {
  /** The model: asks the sampler's tool, answers the sampling request, then reports the tool result. */
  const script = (): Parameters<typeof startScriptedOpenAI>[0] => [
    {
      toolCalls: [
        { id: "s1", name: "mcp_sampler_ask", arguments: '{"prompt":"Name a colour","maxTokens":42}' },
      ],
    },
    (body) => ({
      text:
        body.max_tokens === 42 && JSON.stringify(body.messages).includes("Name a colour")
          ? "Teal."
          : "bad request",
    }),
    (body) => {
      const tools = (body.messages as { role: string; content: string }[]).filter((m) => m.role === "tool");
      return { text: `tool said: ${tools.at(-1)?.content}` };
    },
  ];
  const servers = { sampler: { ...stdioEntry("sampler"), sampling: true } };

  it("is shown (server, messages, token cap) and, approved, answered by the chat's own model", async () => {
    const endpoint = await model(script());
    const run = await chat(servers, endpoint, [], { flags: ["-p", "ask it", "--yes"] });
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/⟳ sampler asks the model \(sampling, at most 42 tokens\):/);
    expect(run.stderr).toMatch(/system: You are a fixture\.\n\s+user: Name a colour/);
    expect(run.stderr).toMatch(/✓ sampling for sampler: Teal\./);
    expect(run.stdout).toMatch(/^tool said: .*"text":"Teal\."/);
    // The sampling request reached the model with the server's system prompt and token cap.
    expect(endpoint.requests[1]).toMatchObject({
      max_tokens: 42,
      messages: [{ role: "system" }, { role: "user" }],
    });
  }, 60_000);

  it("declined (nobody to ask without a terminal), the server gets a refusal and the model never sees the request", async () => {
    const endpoint = await model(script().filter((_, index) => index !== 1));
    // trust lets the tool run without --yes; the sampling request still needs the person's yes.
    const run = await chat({ sampler: { ...servers.sampler, trust: true } }, endpoint, [], {
      flags: ["-p", "ask it"],
    });
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/sampling for sampler declined: no terminal to ask; use --yes/);
    expect(run.stdout).toMatch(/^tool said: .*sampling failed: .*declined the sampling request/);
    expect(endpoint.requests).toHaveLength(2);
  }, 60_000);
});

describe("mcp-bridge chat: a server's questions (elicitation)", () => {
  it("a link to open is shown with its URL, not answered as an empty form; without a terminal it is declined", async () => {
    const endpoint = await model([
      {
        toolCalls: [
          {
            id: "u1",
            name: "mcp_everything_trigger-url-elicitation",
            arguments: '{"url":"https://example.com/consent","message":"Please consent"}',
          },
        ],
      },
      (body) => {
        const tools = (body.messages as { role: string; content: string }[]).filter((m) => m.role === "tool");
        return { text: `tool said: ${tools.at(-1)?.content}` };
      },
    ]);
    const everything = {
      command: process.execPath,
      args: [resolve("node_modules/@modelcontextprotocol/server-everything/dist/index.js"), "stdio"],
    };
    const run = await chat({ everything }, endpoint, [], { flags: ["-p", "consent", "--yes"] });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(
      'Server "everything" asks you to open a link: Please consent\n  https://example.com/consent',
    );
    expect(run.stdout).toMatch(/^tool said: .*decline/i);
  }, 60_000);
});
