import { spawn, spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, expect, it, onTestFinished } from "vitest";
import { cliEnv, emptyHome, runCli, runCliInProcess } from "./cli.js";
import { hasCurl, isCurlSession, runCurlSession } from "./curl-blocks.js";

/**
 * Every code block of the README and of docs/ is what a reader copies, so each is run (or checked) where
 * the reader would run it: a fresh home, `mcp-bridge` on PATH as after `npm link`, the package installed
 * in the project's node_modules. A block that no rule covers fails: a new kind of block needs a rule.
 */

export const root = resolve(".");
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  name: string;
  scripts: Record<string, string>;
  repository: { url: string };
  bin: Record<string, string>;
};

export interface Block {
  readonly file: string;
  readonly lang: string;
  readonly body: string;
  readonly line: number;
}

export function codeBlocks(file: string): Block[] {
  const blocks: Block[] = [];
  const lines = readFileSync(join(root, file), "utf8").split("\n");
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)\s*$/.exec(lines[i] ?? "");
    if (!open) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !/^```\s*$/.test(lines[i] ?? ""); i++) body.push(lines[i] ?? "");
    blocks.push({ file, lang: open[1] ?? "", body: body.join("\n"), line: start + 1 });
  }
  return blocks;
}

const isShell = (b: Block) => b.lang === "sh" && !isCurlSession(b);
const isProgram = (b: Block) => b.lang === "js";
const isTypeScriptLine = (b: Block) => b.lang === "ts";
const isPython = (b: Block) => b.lang === "python";
const isConfig = (b: Block) => b.lang === "jsonc" || b.lang === "json" || b.lang === "toml";
const isCliReference = (b: Block) => b.lang === "" && /^mcp-bridge /m.test(b.body);
const isLayout = (b: Block) => b.lang === "" && /^src\/$/m.test(b.body);
/** Code in a language this suite cannot build here (Rust needs crates): shown, not run. */
const isSketch = (b: Block) => b.lang === "rust";
const rules = [
  isShell,
  isCurlSession,
  isProgram,
  isTypeScriptLine,
  isPython,
  isConfig,
  isCliReference,
  isLayout,
  isSketch,
];

const homes: string[] = [];
afterAll(() => {
  for (const dir of homes) rmSync(dir, { recursive: true, force: true });
});

/**
 * A reader's folder: `mcp-bridge` on PATH (as `npm link` puts it there), and node_modules with this
 * package and the MCP reference servers, so `npx -y @modelcontextprotocol/server-*` finds them without
 * the network, as it would after its first download.
 */
function readerHome(): { dir: string; env: Record<string, string> } {
  const dir = emptyHome();
  homes.push(dir);
  mkdirSync(join(dir, "node_modules"), { recursive: true });
  symlinkSync(root, join(dir, "node_modules", pkg.name), "dir");
  symlinkSync(
    join(root, "node_modules", "@modelcontextprotocol"),
    join(dir, "node_modules", "@modelcontextprotocol"),
  );
  mkdirSync(join(dir, ".bin"));
  symlinkSync(join(root, pkg.bin["mcp-bridge"] ?? ""), join(dir, ".bin", "mcp-bridge"));
  // The daemon's socket and log go under the home too, so nothing is left in the shared temp folder.
  mkdirSync(join(dir, "run"), { mode: 0o700 });
  const env = cliEnv(dir, { XDG_RUNTIME_DIR: join(dir, "run") });
  return { dir, env: { ...env, PATH: `${join(dir, ".bin")}:${env.PATH ?? ""}` } };
}

function run(
  command: string,
  args: readonly string[],
  cwd: string,
  env: Record<string, string>,
): Promise<{ code: number | null; out: string; stdout: string }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, { cwd, env });
    let out = "";
    let stdout = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      out += chunk;
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      out += chunk;
    });
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${command} ${args.join(" ")} did not finish in time:\n${out}`));
    }, 60_000);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolvePromise({ code, out, stdout });
    });
  });
}

/** What a program block's comments say it prints: `// prints TEXT`, `// 42`, `// true`. */
function expectedOutput(body: string, comment: "//" | "#"): string[] {
  const prints = new RegExp(`${comment} prints (.+)$`, "gm");
  const values = new RegExp(`${comment} (\\d+|true|false)\\s*$`, "gm");
  return [...body.matchAll(prints), ...body.matchAll(values)].map((m) => (m[1] ?? "").trim());
}

/** The `mcp.json` a page tells the reader to create (a jsonc block opening with `// mcp.json`). */
function pageConfig(blocks: readonly Block[]): string | undefined {
  const block = blocks.find(
    (b) => b.lang === "jsonc" && /^\/\/ mcp\.json\s*$/m.test(b.body.split("\n")[0] ?? ""),
  );
  return block?.body.split("\n").slice(1).join("\n");
}

/** The `mcp-bridge add ...` lines of a page: the servers its later blocks use. */
function addedServers(blocks: readonly Block[]): string[][] {
  return blocks
    .filter(isShell)
    .flatMap((b) => b.body.split("\n"))
    .map(
      (line) =>
        line
          .split(/\s+#\s+/)[0]
          ?.trim()
          .split(/\s+/) ?? [],
    )
    .filter((words) => words[0] === "mcp-bridge" && words[1] === "add");
}

/** A line of an install block that cannot be run here is checked against the package instead. */
function checkInstallStep(words: readonly string[]): void {
  const [tool, sub, ...rest] = words;
  if (tool === "git") {
    expect(sub).toBe("clone");
    expect(pkg.repository.url).toBe(`git+${rest[0]}`);
  } else if (tool === "cd") {
    expect(sub).toBe(pkg.name);
  } else if (tool === "npm" && sub === "run") {
    expect(pkg.scripts[rest[0] ?? ""], `npm run ${rest[0]}`).toBeDefined();
  } else if (tool === "npm" && sub === "install" && rest[0] === "-g") {
    // Not on the registry (yet): installed from the repository, built by `prepare` (test/package/install.test.ts).
    expect(rest[1]).toBe(pkg.repository.url);
    expect(pkg.scripts.prepare).toBeDefined();
  } else {
    expect(["npm install", "npm link", "npm test"]).toContain(words.join(" "));
  }
}

/** Registers one test per code block of the given Markdown files. */
export function testCodeBlocks(files: readonly string[]): void {
  const byFile = new Map(files.map((file) => [file, codeBlocks(file)]));
  const blocks = [...byFile.values()].flat();

  it("every block is covered by a rule", () => {
    expect(blocks.length).toBeGreaterThan(0);
    const uncovered = blocks.filter((b) => !rules.some((rule) => rule(b))).map((b) => `${b.file}:${b.line}`);
    expect(uncovered).toEqual([]);
  });

  for (const block of blocks.filter(isShell)) {
    it(`${block.file}:${block.line} sh: each command runs and prints what its comment says`, async () => {
      const { dir, env } = readerHome();
      // A block that starts a daemon stops it in its last line; stop it here too when a line failed first.
      const daemon = /^mcp-bridge daemon start/m.test(block.body);
      onTestFinished(async () => {
        if (daemon) await runCli(["daemon", "stop"], { cwd: dir, env, timeoutMs: 30_000 });
      });
      for (const raw of block.body.split("\n")) {
        const [command = "", comment = ""] = raw.split(/\s+#\s+/, 2);
        for (const step of command.split("&&")) {
          const words = step.trim().split(/\s+/).filter(Boolean);
          if (words[0] === "npx" && words[1] === "mcp-bridge") words.shift();
          if (words.length === 0) continue;
          if (words[0] !== "mcp-bridge") {
            checkInstallStep(words);
            continue;
          }
          const result = await runCli(words.slice(1), { cwd: dir, env, timeoutMs: 60_000 });
          expect(result.code, `${step}\n${result.stderr}`).toBe(0);
          const printed = /^prints (.+)$/.exec(comment.trim());
          if (printed?.[1]) expect(result.stdout.trim()).toBe(printed[1]);
        }
      }
    }, 240_000);
  }

  /** The page's mcp.json, else the bundled examples' (calculator and notes), as a reader would have it. */
  const projectConfig = (file: string) =>
    pageConfig(byFile.get(file) ?? []) ??
    readFileSync(join(root, "examples", "mcp.json"), "utf8").replaceAll(
      "${configDir}",
      join(root, "examples"),
    );

  if (!hasCurl && blocks.some(isCurlSession)) console.warn("curl blocks skipped: curl is not installed");
  for (const block of blocks.filter(isCurlSession)) {
    it.skipIf(!hasCurl)(
      `${block.file}:${block.line} sh: the gateway it starts answers each curl line as its comment says`,
      async () => {
        const { dir, env } = readerHome();
        writeFileSync(join(dir, "mcp.json"), projectConfig(block.file));
        await runCurlSession(block, dir, env);
      },
      180_000,
    );
  }

  for (const block of blocks.filter(isProgram)) {
    it(`${block.file}:${block.line} js: runs as written on this Node, in a project with its mcp.json`, async () => {
      const { dir, env } = readerHome();
      writeFileSync(join(dir, "mcp.json"), projectConfig(block.file));
      writeFileSync(join(dir, "example.mjs"), block.body);
      const result = await run(process.execPath, ["example.mjs"], dir, env);
      expect(result.code, result.out).toBe(0);
      for (const value of expectedOutput(block.body, "//"))
        expect(result.stdout, result.out).toContain(value);
    }, 90_000);
  }

  const major = Number(process.versions.node.split(".")[0]);
  for (const block of blocks.filter(isTypeScriptLine)) {
    // `await using` is JavaScript from Node 24 on; CI runs this suite on Node 24 too.
    it.skipIf(major < 24)(
      `${block.file}:${block.line} ts: runs on Node 24 as a module`,
      async () => {
        const { dir, env } = readerHome();
        const config = pageConfig(byFile.get(block.file) ?? []);
        if (config) writeFileSync(join(dir, "mcp.json"), config);
        const program = [
          'import { McpBridge } from "mcp-bridge";',
          "{",
          block.body,
          '  console.log(bridge.tools().length > 0 ? "tools" : "none");',
          "}",
          'console.log("closed");',
        ].join("\n");
        writeFileSync(join(dir, "using.mjs"), program);
        const result = await run(process.execPath, ["using.mjs"], dir, env);
        expect(result.code, result.out).toBe(0);
        expect(result.out).toContain("tools\nclosed");
      },
      90_000,
    );
  }

  const python = spawnSync("python3", ["--version"]).status === 0;
  if (!python && blocks.some(isPython)) console.warn("python blocks skipped: python3 is not installed");
  for (const block of blocks.filter(isPython)) {
    it.skipIf(!python)(
      `${block.file}:${block.line} python: runs with the servers the page added`,
      async () => {
        const { dir, env } = readerHome();
        for (const words of addedServers(byFile.get(block.file) ?? [])) {
          const added = await runCli(words.slice(1), { cwd: dir, env, timeoutMs: 60_000 });
          expect(added.code, added.stderr).toBe(0);
        }
        writeFileSync(join(dir, "host.py"), block.body);
        const result = await run("python3", ["host.py"], dir, env);
        expect(result.code, result.out).toBe(0);
        for (const value of expectedOutput(block.body, "#"))
          expect(result.stdout, result.out).toContain(value);
      },
      120_000,
    );
  }

  for (const block of blocks.filter(isConfig)) {
    it(`${block.file}:${block.line} ${block.lang}: a valid config that loads every server it shows`, async () => {
      const { dir } = readerHome();
      // A JSONC block may show several files, each after its own `//` comment line.
      const documents =
        block.lang === "toml"
          ? [block.body]
          : block.body
              .split(/^\/\/.*$/m)
              .map((d) => d.trim())
              .filter(Boolean);
      for (const [index, text] of documents.entries()) {
        const file = join(dir, `doc${index}.${block.lang === "toml" ? "toml" : "json"}`);
        writeFileSync(file, text);
        // In this process: validating starts no server, and a process per block would cost most of the time.
        const result = await runCliInProcess(["config", "validate", "--config", file, "--json"], {
          cwd: dir,
          env: cliEnv(dir, { KEY: "k-value-for-readme", TOKEN: "t-value-for-readme", SECRET: "s" }),
        });
        const report = JSON.parse(result.stdout || "{}") as {
          valid: boolean;
          servers: unknown;
          warnings: { kind?: string; server?: string }[];
        };
        // A host's entry for the bridge itself (`mcp-bridge serve --stdio`) is what mcp-bridge skips.
        const itself = report.warnings.filter((warning) => warning.kind === "self-reference");
        expect(
          report.warnings.filter((warning) => !itself.includes(warning)),
          text,
        ).toEqual([]);
        if (itself.length === 0) {
          expect(result.code, `${text}\n${result.stdout}${result.stderr}`).toBe(0);
          expect(report.valid, text).toBe(true);
        }
        const shown = new Set(
          [
            ...text.matchAll(
              /"([\w-]+)"\s*:\s*\{\s*"(?:command|url|type)"|^\[mcp_servers\.([\w-]+)\]|^name = "([\w-]+)"|^([\w-]+) = \{ command/gm,
            ),
          ].map((m) => m[1] ?? m[2] ?? m[3] ?? m[4]),
        );
        expect(shown.size, text).toBeGreaterThan(0);
        const servers = Array.isArray(report.servers)
          ? (report.servers as (string | { name?: string })[]).map((s) =>
              typeof s === "string" ? s : s.name,
            )
          : Object.keys(report.servers as object);
        for (const name of shown)
          expect([...servers, ...itself.map((warning) => warning.server)], text).toContain(name);
      }
    }, 90_000);
  }

  for (const block of blocks.filter(isCliReference)) {
    it(`${block.file}:${block.line}: every command of the CLI reference has help`, async () => {
      const { dir, env } = readerHome();
      const commands = new Set(
        [...block.body.matchAll(/^mcp-bridge ([a-z-]+)/gm)]
          .map((m) => m[1] as string)
          .filter((c) => c !== "help"),
      );
      expect(commands.size).toBeGreaterThan(0);
      for (const command of commands) {
        const result = await runCliInProcess([command, "--help"], { cwd: dir, env });
        expect(result.code, `${command} --help\n${result.stderr}`).toBe(0);
        expect(result.stdout).toContain(command);
      }
    }, 90_000);
  }

  for (const block of blocks.filter(isLayout)) {
    it(`${block.file}:${block.line}: the source tree lists every entry of src/ and only those`, () => {
      const entries = [...block.body.matchAll(/^ {2}([\w.-]+\/?)\s{2,}/gm)].map((m) => m[1] as string);
      const actual = readdirSync(join(root, "src"), { withFileTypes: true }).map((e) =>
        e.isDirectory() ? `${e.name}/` : e.name,
      );
      expect([...entries].sort()).toEqual([...actual].sort());
      // The applications, one level down: every folder of src/apps/ and only those.
      const apps = [...block.body.matchAll(/^ {4}([\w.-]+\/?)\s{2,}/gm)].map((m) => m[1] as string);
      const actualApps = readdirSync(join(root, "src/apps"), { withFileTypes: true }).map((e) =>
        e.isDirectory() ? `${e.name}/` : e.name,
      );
      expect([...apps].sort()).toEqual([...actualApps].sort());
      for (const top of [...block.body.matchAll(/^([\w.-]+\/)/gm)].map((m) => m[1] as string)) {
        expect(existsSync(join(root, top)), top).toBe(true);
      }
    });
  }
}
