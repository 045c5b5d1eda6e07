import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cliEnv, emptyHome, runCli } from "./helpers/cli.js";

/**
 * The README is what a new user follows line by line, so every code block in it is run (or checked)
 * here. A block that no rule below covers fails the first test: a new block needs a rule.
 */

const root = resolve(".");
const readme = readFileSync(join(root, "README.md"), "utf8");

interface Block {
  readonly lang: string;
  readonly body: string;
  readonly line: number;
}

function codeBlocks(text: string): Block[] {
  const blocks: Block[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)\s*$/.exec(lines[i] ?? "");
    if (!open) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !/^```\s*$/.test(lines[i] ?? ""); i++) body.push(lines[i] ?? "");
    blocks.push({ lang: open[1] ?? "", body: body.join("\n"), line: start + 1 });
  }
  return blocks;
}

const blocks = codeBlocks(readme);
const isShell = (b: Block) => b.lang === "sh";
const isProgram = (b: Block) => b.lang === "js";
const isTypeScriptLine = (b: Block) => b.lang === "ts";
const isConfig = (b: Block) => b.lang === "jsonc" || b.lang === "json" || b.lang === "toml";
const isCliReference = (b: Block) => b.lang === "" && /^mcp-bridge /m.test(b.body);
const isLayout = (b: Block) => b.lang === "" && /^src\/$/m.test(b.body);
const rules = [isShell, isProgram, isTypeScriptLine, isConfig, isCliReference, isLayout];

const homes: string[] = [];
function home(): string {
  const dir = emptyHome();
  homes.push(dir);
  return dir;
}

function runNode(
  script: string,
  cwd: string,
  node = process.execPath,
): Promise<{ code: number | null; out: string }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(node, [script], { cwd, env: cliEnv(cwd) });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      out += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      out += chunk;
    });
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${script} did not finish in time:\n${out}`));
    }, 30_000);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolvePromise({ code, out });
    });
  });
}

/** A project folder where `import "mcp-bridge"` resolves to this package and mcp.json has the examples. */
function projectWithPackage(): string {
  const dir = home();
  mkdirSync(join(dir, "node_modules"), { recursive: true });
  symlinkSync(root, join(dir, "node_modules", "mcp-bridge"), "dir");
  const examples = readFileSync(join(root, "examples", "mcp.json"), "utf8").replaceAll(
    "${configDir}",
    join(root, "examples"),
  );
  writeFileSync(join(dir, "mcp.json"), examples);
  return dir;
}

afterAll(() => {
  for (const dir of homes) rmSync(dir, { recursive: true, force: true });
});

describe("README code blocks", () => {
  it("every block is covered by a rule of this test", () => {
    expect(blocks.length).toBeGreaterThan(0);
    const uncovered = blocks.filter((b) => !rules.some((rule) => rule(b))).map((b) => `line ${b.line}`);
    expect(uncovered).toEqual([]);
  });

  for (const block of blocks.filter(isShell)) {
    it(`sh block at line ${block.line}: each mcp-bridge command runs and prints what its comment says`, async () => {
      const cwd = home();
      for (const raw of block.body.split("\n")) {
        const [command = "", comment = ""] = raw.split(/\s+#\s+/, 2);
        const words = command.trim().split(/\s+/).filter(Boolean);
        if (words.length === 0) continue;
        // `npm install` and `npm test` are what CI itself runs on a clean clone.
        if (words[0] === "npm" && (words[1] === "install" || words[1] === "test")) {
          const rest = command.split("&&").slice(1).join("&&").trim();
          if (!rest) continue;
          words.splice(0, words.length, ...rest.split(/\s+/));
        }
        expect(words.slice(0, 2)).toEqual(["npx", "mcp-bridge"]);
        const run = await runCli(words.slice(2), { cwd, env: cliEnv(cwd), timeoutMs: 30_000 });
        expect(run.code, `${command}\n${run.stderr}`).toBe(0);
        const printed = /^prints (.+)$/.exec(comment.trim());
        if (printed?.[1]) expect(run.stdout.trim()).toBe(printed[1]);
      }
    }, 90_000);
  }

  for (const block of blocks.filter(isProgram)) {
    it(`js block at line ${block.line} runs as written on this Node`, async () => {
      const dir = projectWithPackage();
      writeFileSync(join(dir, "example.mjs"), block.body);
      const run = await runNode("example.mjs", dir);
      expect(run.code, run.out).toBe(0);
      const expected = [...block.body.matchAll(/\/\/ (\d+)\s*$/gm)].map((m) => m[1]);
      for (const value of expected) expect(run.out).toContain(value);
    }, 60_000);
  }

  const major = Number(process.versions.node.split(".")[0]);
  for (const block of blocks.filter(isTypeScriptLine)) {
    // `await using` is JavaScript from Node 24 on; CI runs this suite on Node 24 too.
    it.skipIf(major < 24)(
      `ts block at line ${block.line} runs on Node 24 as a module`,
      async () => {
        const dir = projectWithPackage();
        const program = [
          'import { McpBridge } from "mcp-bridge";',
          "{",
          block.body,
          '  console.log(bridge.tools().length > 0 ? "tools" : "none");',
          "}",
          'console.log("closed");',
        ].join("\n");
        writeFileSync(join(dir, "using.mjs"), program);
        const run = await runNode("using.mjs", dir);
        expect(run.code, run.out).toBe(0);
        expect(run.out).toContain("tools\nclosed");
      },
      60_000,
    );
  }

  for (const block of blocks.filter(isConfig)) {
    it(`${block.lang} block at line ${block.line} is a valid config that loads every server it shows`, async () => {
      const cwd = home();
      // The JSONC block shows several files, each after its own `//` comment line.
      const documents =
        block.lang === "toml"
          ? [block.body]
          : block.body
              .split(/^\/\/.*$/m)
              .map((d) => d.trim())
              .filter(Boolean);
      for (const [index, text] of documents.entries()) {
        const file = join(cwd, `doc${index}.${block.lang === "toml" ? "toml" : "json"}`);
        writeFileSync(file, text);
        const run = await runCli(["config", "validate", "--config", file, "--json"], {
          cwd,
          env: cliEnv(cwd, { KEY: "k-value-for-readme", TOKEN: "t-value-for-readme", SECRET: "s" }),
        });
        const report = JSON.parse(run.stdout || "{}") as {
          valid: boolean;
          servers: unknown;
          warnings: unknown[];
        };
        expect(run.code, `${text}\n${run.stdout}${run.stderr}`).toBe(0);
        expect(report.warnings, text).toEqual([]);
        expect(report.valid, text).toBe(true);
        const shown = new Set(
          [
            ...text.matchAll(
              /"([\w-]+)"\s*:\s*\{\s*"(?:command|url|type)"|^\[mcp_servers\.([\w-]+)\]|^name = "([\w-]+)"|^([\w-]+) = \{ command/gm,
            ),
          ].map((m) => m[1] ?? m[2] ?? m[3] ?? m[4]),
        );
        const servers = Array.isArray(report.servers)
          ? (report.servers as (string | { name?: string })[]).map((s) =>
              typeof s === "string" ? s : s.name,
            )
          : Object.keys(report.servers as object);
        for (const name of shown) expect(servers, text).toContain(name);
      }
    }, 60_000);
  }

  for (const block of blocks.filter(isCliReference)) {
    it(`CLI reference at line ${block.line}: every command listed has help`, async () => {
      const cwd = home();
      const commands = new Set(
        [...block.body.matchAll(/^mcp-bridge ([a-z-]+)/gm)]
          .map((m) => m[1] as string)
          .filter((c) => c !== "help"),
      );
      expect(commands.size).toBeGreaterThan(0);
      for (const command of commands) {
        const run = await runCli([command, "--help"], { cwd, env: cliEnv(cwd) });
        expect(run.code, `${command} --help\n${run.stderr}`).toBe(0);
        expect(run.stdout).toContain(command);
      }
    }, 60_000);
  }

  for (const block of blocks.filter(isLayout)) {
    it(`layout at line ${block.line} names folders that exist`, () => {
      const entries = [...block.body.matchAll(/^\s+([\w.-]+\/?)\s{2,}/gm)].map((m) => m[1] as string);
      expect(entries.length).toBeGreaterThan(0);
      for (const entry of entries) {
        expect(existsSync(join(root, "src", entry)), `src/${entry}`).toBe(true);
      }
      for (const top of [...block.body.matchAll(/^([\w.-]+\/)/gm)].map((m) => m[1] as string)) {
        expect(existsSync(join(root, top)), top).toBe(true);
      }
    });
  }
});
