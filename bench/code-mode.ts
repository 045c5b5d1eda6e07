/**
 * Code mode against direct tools and catalog mode: definition tokens per request on the 203-tool
 * catalog of real MCP servers (test/fixtures/catalogs), and a scripted task suite against real
 * servers (server-filesystem, server-memory, the `normal` fixture) where a scripted model answers
 * with fixed calls (direct) or one fixed program (code mode). Counted with o200k: the tokens that
 * enter the model's context for the task (what the model writes: arguments or the program; what it
 * reads back: results or the program's output) and the model turns that call tools.
 *
 * Alone: `node dist/bench/code-mode.js` after `npx tsc -p tsconfig.build.json`.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { definitionTokens, toolCatalog } from "../src/adapters/search-tools.js";
import type { Bridge, ToolEntry } from "../src/bridge/api.js";
import { startBridge } from "../src/bridge/bridge.js";
import { codeModeTools } from "../src/codemode/meta-tools.js";
import { flattenParameters } from "../src/registry/flatten.js";
import { ToolSearchIndex } from "../src/search/tool-search.js";
import { realCatalog } from "../test/fixtures/catalogs/index.js";
import { stdioEntry } from "../test/fixtures/servers/index.js";
import type { Figure } from "./stats.js";

/** One step of the direct model: the calls it makes in one turn (run in parallel). */
type DirectTurn = (
  previous: readonly string[],
) => { server: string; tool: string; args: Record<string, unknown> }[];

interface Task {
  readonly name: string;
  /** The direct model's turns; each sees the texts of the previous turn's results. */
  readonly direct: readonly DirectTurn[];
  /** The code-mode model's one program. */
  readonly program: string;
  /** What its output must show: a figure of a program that answered wrong is no figure. */
  readonly expect: RegExp;
}

async function tokens(text: string): Promise<number> {
  const { countTokens } = await import("gpt-tokenizer/encoding/o200k_base");
  return countTokens(text);
}

async function directRun(bridge: Bridge, task: Task): Promise<{ tokens: number; turns: number }> {
  let previous: string[] = [];
  let total = 0;
  for (const turn of task.direct) {
    const calls = turn(previous);
    const results = await Promise.all(
      calls.map(async (call) => {
        const entry = bridge.tools({ server: call.server }).find((t) => t.tool === call.tool) as ToolEntry;
        total += await tokens(JSON.stringify({ name: entry.name, arguments: call.args }));
        // The whole result: a model that reads a cut result cannot answer the task.
        const result = await bridge.call(entry.name, call.args, { maxResultChars: 50_000_000 });
        return result.text;
      }),
    );
    for (const text of results) total += await tokens(text);
    previous = results;
  }
  return { tokens: total, turns: task.direct.length };
}

async function codeRun(
  bridge: Bridge,
  task: Task,
): Promise<{ tokens: number; turns: number; output: string }> {
  const execute = codeModeTools(bridge).find((t) => t.name === "execute_code") as ToolEntry;
  const result = await execute.call({ code: task.program });
  if (result.isError || !task.expect.test(result.text)) throw new Error(`${task.name}: ${result.text}`);
  return {
    tokens: (await tokens(task.program)) + (await tokens(result.text)),
    turns: 1,
    output: result.text,
  };
}

function tasks(folder: string): Task[] {
  const file = join(folder, "big.log");
  const issues = join(folder, "issues");
  return [
    {
      name: "count the lines of a large file",
      direct: [() => [{ server: "fs", tool: "read_text_file", args: { path: file } }]],
      program: `const r = await tools.fs.read_text_file({ path: ${JSON.stringify(file)} });
console.log(r.content.split("\\n").length, "lines");`,
      expect: /^16000 lines$/,
    },
    {
      name: "list, filter and fetch across two servers",
      direct: [
        () => [{ server: "fs", tool: "list_directory", args: { path: issues } }],
        ([listing = ""]) => {
          const names = [...listing.matchAll(/\[FILE\] (\S+)/g)].map((m) => m[1] as string);
          return [
            { server: "fs", tool: "read_multiple_files", args: { paths: names.map((n) => join(issues, n)) } },
          ];
        },
        ([contents = ""]) => {
          const owners = [...contents.matchAll(/priority: critical\nowner: (\S+)/g)].map(
            (m) => m[1] as string,
          );
          return [{ server: "memory", tool: "open_nodes", args: { names: owners } }];
        },
      ],
      program: `const listing = await tools.fs.list_directory({ path: ${JSON.stringify(issues)} });
const names = [...listing.content.matchAll(/\\[FILE\\] (\\S+)/g)].map((m) => m[1]);
const files = await Promise.all(names.map((n) => tools.fs.read_text_file({ path: ${JSON.stringify(issues)} + "/" + n })));
const critical = files.map((f, i) => ({ name: names[i], text: f.content })).filter((f) => f.text.includes("priority: critical"));
const owners = critical.map((f) => /owner: (\\S+)/.exec(f.text)[1]);
const people = (await tools.memory.open_nodes({ names: owners })).entities;
for (const f of critical) {
  const owner = /owner: (\\S+)/.exec(f.text)[1];
  const person = people.find((p) => p.name === owner);
  console.log(f.name, owner, person ? person.observations[0] : "?");
}`,
      expect:
        /^issue-13\.md person6 works on team G\nissue-26\.md person5 works on team F\nissue-39\.md person4 works on team E$/,
    },
    {
      name: "a five-step chain",
      direct: [
        () => [{ server: "calc", tool: "add", args: { a: 2, b: 3 } }],
        ([sum = "0"]) => [{ server: "calc", tool: "add", args: { a: Number(sum), b: 10 } }],
        ([sum = "0"]) => [{ server: "calc", tool: "divide", args: { a: Number(sum), b: 5 } }],
        ([quotient = "{}"]) => [
          { server: "calc", tool: "echo", args: { text: `quotient ${JSON.parse(quotient).quotient}` } },
        ],
        ([text = ""]) => [{ server: "calc", tool: "greet", args: { name: text, polite: true } }],
      ],
      program: `const a = await tools.calc.add({ a: 2, b: 3 });
const b = await tools.calc.add({ a: Number(a.text), b: 10 });
const { quotient } = await tools.calc.divide({ a: Number(b.text), b: 5 });
const e = await tools.calc.echo({ text: "quotient " + quotient });
console.log((await tools.calc.greet({ name: e.text, polite: true })).text);`,
      expect: /^Good day, quotient 3\.$/,
    },
  ];
}

function prepare(folder: string): void {
  const lines = Array.from(
    { length: 16_000 },
    (_, i) => `2026-11-26T05:00:${String(i % 60).padStart(2, "0")}Z INFO request ${i} served in ${i % 97} ms`,
  );
  writeFileSync(join(folder, "big.log"), lines.join("\n"));
  const issues = join(folder, "issues");
  mkdirSync(issues);
  for (let i = 1; i <= 40; i++) {
    const critical = i % 13 === 0;
    const body = `# Issue ${i}\npriority: ${critical ? "critical" : "normal"}\nowner: person${i % 7}\n\n${"Steps to reproduce: open the app, click around, observe the failure. ".repeat(12)}`;
    writeFileSync(join(issues, `issue-${String(i).padStart(2, "0")}.md`), body);
  }
}

export async function codeModeFigures(root: string): Promise<Figure[]> {
  const figures: Figure[] = [];
  // Definition tokens on the 203-tool catalog.
  const catalog: ToolEntry[] = realCatalog().map((d) => ({
    ...d,
    call: async () => ({ text: "", content: [], isError: false }),
    flatParameters: () => flattenParameters(d.inputSchema),
  }));
  const index = new ToolSearchIndex(catalog);
  const source = {
    tools: () => catalog,
    tool: (name: string) => catalog.find((t) => t.name === name),
    searchTools: (query: string, options?: { limit?: number }) => index.search(query, options),
    call: async () => ({ text: "", content: [], isError: false }),
  };
  const full = await definitionTokens(catalog);
  const catalogMode = (await toolCatalog(source, { mode: "always" })).exportedTokens;
  const codeMode = await definitionTokens(codeModeTools(source));
  figures.push({
    name: "code_mode_definition_tokens",
    unit: "tokens",
    bridge: codeMode,
    baseline: full,
    baselineName: `all ${catalog.length} tools (catalog mode: ${catalogMode})`,
    detail: `o200k tokens per request; ${(100 * (1 - codeMode / full)).toFixed(1)}% fewer than direct`,
    target: { text: ">= 85% fewer definition tokens than direct tools", met: codeMode <= 0.15 * full },
  });

  // The scripted task suite against real servers.
  const folder = mkdtempSync(join(tmpdir(), "mcp-bridge-code-mode-"));
  prepare(folder);
  const script = (name: string) => resolve(root, `node_modules/@modelcontextprotocol/${name}/dist/index.js`);
  const bridge = await startBridge({
    servers: {
      fs: { command: process.execPath, args: [script("server-filesystem"), folder] },
      memory: {
        command: process.execPath,
        args: [script("server-memory")],
        env: { MEMORY_FILE_PATH: join(folder, "memory.jsonl") },
      },
      calc: stdioEntry("normal"),
    },
    catalogCache: false,
  });
  try {
    const create = bridge.tools({ server: "memory" }).find((t) => t.tool === "create_entities") as ToolEntry;
    await create.call({
      entities: Array.from({ length: 7 }, (_, i) => ({
        name: `person${i}`,
        entityType: "person",
        observations: [`works on team ${String.fromCharCode(65 + i)}`, "joined in 2024"],
      })),
    });
    let directTokens = 0;
    let codeTokens = 0;
    for (const task of tasks(folder)) {
      const direct = await directRun(bridge, task);
      const code = await codeRun(bridge, task);
      directTokens += direct.tokens;
      codeTokens += code.tokens;
      figures.push({
        name: `code_mode_task: ${task.name}`,
        unit: "tokens",
        bridge: code.tokens,
        baseline: direct.tokens,
        baselineName: `direct tools, ${direct.turns} tool turns`,
        detail: `code mode: ${code.turns} tool turn; ${(100 * (1 - code.tokens / direct.tokens)).toFixed(1)}% fewer context tokens`,
      });
    }
    figures.push({
      name: "code_mode_task_suite_tokens",
      unit: "tokens",
      bridge: codeTokens,
      baseline: directTokens,
      baselineName: "direct tools",
      detail: `${(100 * (1 - codeTokens / directTokens)).toFixed(1)}% fewer context tokens; one tool turn per task`,
      target: {
        text: ">= 90% fewer context tokens, one model turn per task",
        met: codeTokens <= 0.1 * directTokens,
      },
    });
  } finally {
    await bridge.close();
    rmSync(folder, { recursive: true, force: true });
  }
  return figures;
}

// `node dist/bench/code-mode.js`: this section alone.
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(fileURLToPath(import.meta.url), "../../..");
  for (const figure of await codeModeFigures(root)) {
    process.stdout.write(
      `${figure.name}: code mode=${figure.bridge} ${figure.unit}, ${figure.baselineName}=${figure.baseline} ${figure.unit}${figure.detail ? ` (${figure.detail})` : ""}${figure.target ? ` target ${figure.target.text}: ${figure.target.met ? "met" : "NOT met"}` : ""}\n`,
    );
  }
}
