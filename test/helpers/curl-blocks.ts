import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { createInterface } from "node:readline";
import { expect } from "vitest";
import { CLI } from "./cli.js";
import { runProcess } from "./process.js";

/**
 * A shell block that starts the gateway and talks to it with curl, as a reader copies it:
 *
 *     MCP_BRIDGE_GATEWAY_ADMIN_TOKEN=admin-secret mcp-bridge serve --http 8808 &
 *     curl -s http://127.0.0.1:8808/tools   # prints {"tools":[...]}
 *
 * The first line starts the gateway (environment assignments first; the port the page names is replaced
 * by a free one, so blocks and parallel runs never collide); every other line is one curl command, run
 * without a shell. A `# prints TEXT` comment is the exact output, `# shows TEXT` a part of it,
 * `# matches REGEX` a pattern the whole output matches.
 */

const START = /^((?:[A-Z][A-Z0-9_]*=\S*\s+)*)mcp-bridge serve --http (\d+)((?:\s+[^&\s]+)*)\s+&\s*$/;

export const hasCurl = spawnSync("curl", ["--version"]).status === 0;

export function isCurlSession(block: { lang: string; body: string }): boolean {
  return block.lang === "sh" && START.test(block.body.split("\n")[0] ?? "");
}

/** The words of a command line as a POSIX shell splits them (quotes, backslashes; no expansion). */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i] as string;
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) throw new Error(`unterminated ' in: ${line}`);
      word = (word ?? "") + line.slice(i + 1, end);
      i = end;
    } else if (c === '"') {
      let text = "";
      for (i++; i < line.length && line[i] !== '"'; i++) {
        if (line[i] === "\\" && /["\\$`]/.test(line[i + 1] ?? "")) i++;
        text += line[i];
      }
      if (i >= line.length) throw new Error(`unterminated " in: ${line}`);
      word = (word ?? "") + text;
    } else if (c === "\\") {
      word = (word ?? "") + (line[++i] ?? "");
    } else if (/\s/.test(c)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (/[|;&<>$`]/.test(c)) {
      // What only a shell would do: a block line must be one plain command.
      throw new Error(`a curl block line must not use the shell (${c}): ${line}`);
    } else {
      word = (word ?? "") + c;
    }
  }
  if (word !== undefined) words.push(word);
  return words;
}

function run(command: string, args: readonly string[], cwd: string, env: Record<string, string>) {
  return runProcess(command, args, { cwd, env, timeoutMs: 60_000 });
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((done) => child.once("exit", done));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
  await exited;
  clearTimeout(timer);
}

/** Runs the block in `dir` (a reader's folder holding the page's mcp.json), the gateway stopped after. */
export async function runCurlSession(
  block: { body: string },
  dir: string,
  env: Record<string, string>,
): Promise<void> {
  const [first = "", ...lines] = block.body.split("\n");
  const [, assignments = "", port = "", rest = ""] = START.exec(first) ?? [];
  // The reader approved their project's config (`mcp-bridge trust`) before starting the gateway.
  const gatewayEnv: Record<string, string> = { ...env, MCP_BRIDGE_TRUST_PROJECT: "1" };
  for (const pair of assignments.trim().split(/\s+/).filter(Boolean)) {
    const at = pair.indexOf("=");
    gatewayEnv[pair.slice(0, at)] = pair.slice(at + 1);
  }
  const args = ["serve", "--http", "127.0.0.1:0", "--json", ...rest.trim().split(/\s+/).filter(Boolean)];
  const gateway = spawn(process.execPath, [CLI, ...args], {
    cwd: dir,
    env: gatewayEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  gateway.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  try {
    const url = await new Promise<URL>((done, fail) => {
      const timer = setTimeout(() => fail(new Error(`${first}: not listening in 60 s\n${stderr}`)), 60_000);
      let printed = "";
      createInterface({ input: gateway.stdout as NodeJS.ReadableStream }).on("line", (line) => {
        printed += `${line}\n`;
        if (!line.startsWith('{"url":')) return;
        clearTimeout(timer);
        done(new URL((JSON.parse(line) as { url: string }).url));
      });
      gateway.once("exit", (code) => fail(new Error(`${first}: exited with ${code}\n${printed}${stderr}`)));
    });
    for (const raw of lines) {
      const [command = "", comment = ""] = raw.split(/\s+#\s+/, 2);
      if (command.trim() === "") continue;
      const words = shellWords(command.replaceAll(`:${port}/`, `:${url.port}/`));
      expect(words[0], raw).toBe("curl");
      const result = await run("curl", words.slice(1), dir, env);
      expect(result.code, `${raw}\n${result.stderr}\n${stderr}`).toBe(0);
      const prints = /^prints (.+)$/.exec(comment.trim());
      if (prints?.[1]) expect(result.stdout.trim(), raw).toBe(prints[1]);
      const shows = /^shows (.+)$/.exec(comment.trim());
      if (shows?.[1]) expect(result.stdout, raw).toContain(shows[1]);
      const matches = /^matches (.+)$/.exec(comment.trim());
      if (matches?.[1]) expect(result.stdout.trim(), raw).toMatch(new RegExp(matches[1]));
    }
  } finally {
    await stop(gateway);
  }
}
