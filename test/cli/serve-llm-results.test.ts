import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/client";
import { afterEach, describe, expect, it } from "vitest";
import { stdioEntry } from "../fixtures/servers/index.js";
import { connect } from "../gateway/client.js";
import { cliHome, spawnCli } from "../helpers/cli.js";

/** The server's own cap: the one an LLM result is cut at. */
const CAP = 100;
const home = cliHome({ media: { ...stdioEntry("content-types"), maxResultChars: CAP } });

const children: ReturnType<typeof spawnCli>[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
});

/** Starts `serve --http 0 --json` with `extra` flags; resolves with its /mcp URL. */
async function serveHttp(extra: string[]): Promise<string> {
  const child = spawnCli(["serve", "--http", "0", "--json", "-c", home.config, ...extra], {
    cwd: home.home,
    env: home.env,
  });
  children.push(child);
  return new Promise<string>((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error("serve did not print its URL")), 30_000);
    child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
      out += chunk;
      const line = out.split("\n").find((l) => l.startsWith("{"));
      if (line) {
        clearTimeout(timer);
        resolve((JSON.parse(line) as { url: string }).url);
      }
    });
  });
}

async function callBig(url: string, token?: string): Promise<CallToolResult> {
  await using client = await connect(url, "2026-07-28", token);
  // A tool whose server still connects is waited for by the gateway: no retry needed.
  return (await client.callTool({ name: "media_big", arguments: { chars: 1000 } })) as CallToolResult;
}

const MARKER = /\n\[\.\.\. truncated: \d+ more characters\]$/;
const textOf = (result: CallToolResult) => (result.content[0] as { text: string }).text;

describe("serve's LLM-ready results from the command line", () => {
  it("--llm-results cuts every client's results at the server's maxResultChars", async () => {
    const url = await serveHttp(["--llm-results"]);
    const text = textOf(await callBig(url));
    expect(text.length).toBeLessThanOrEqual(CAP);
    expect(text).toMatch(MARKER);
  }, 60_000);

  it("an --auth file's profile llmResults turns it on for that token only", async () => {
    const auth = join(home.home, "auth.json");
    writeFileSync(
      auth,
      JSON.stringify({
        tokens: [
          { token: "token-a", client: "a", profile: { llmResults: true } },
          { token: "token-b", client: "b" },
        ],
      }),
    );
    const url = await serveHttp(["--auth", auth]);
    expect(textOf(await callBig(url, "token-a"))).toMatch(MARKER);
    expect(textOf(await callBig(url, "token-b"))).toBe("x".repeat(1000));
  }, 60_000);
});
