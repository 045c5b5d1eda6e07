import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { callCommand } from "../../src/apps/cli/commands/call-command.js";
import { statusCommand } from "../../src/apps/cli/commands/status-command.js";
import { shorten, styleFor, table } from "../../src/apps/cli/output.js";
import { parseCommandArguments } from "../../src/apps/cli/parse-arguments.js";
import { parseKeyValues } from "../../src/util/key-values.js";
import { stdioEntry } from "../fixtures/servers/index.js";
import { emptyHome, runCliInProcess } from "../helpers/cli.js";

// biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI escape codes are what is checked.
const ANSI = /\u001b\[/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI escape codes are what is removed.
const ANSI_CODES = /\u001b\[[0-9;]*m/g;

describe("key=value parsing", () => {
  it("gives back any JSON value written as key=<json>", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const written = JSON.stringify(value);
        expect(parseKeyValues([`key=${written}`])).toEqual({ key: JSON.parse(written) });
      }),
      { numRuns: 200 },
    );
  });

  it("keeps text that is not JSON as the string itself, '=' included", () => {
    const notJson = fc.string().filter((text) => {
      try {
        JSON.parse(text);
        return false;
      } catch {
        return true;
      }
    });
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,10}$/), notJson, (key, text) => {
        expect(parseKeyValues([`${key}=${text}`])).toEqual({ [key]: text });
      }),
      { numRuns: 200 },
    );
  });

  it("later pairs win, and a pair without a key is a usage error", () => {
    expect(parseKeyValues(["a=1", "a=2"])).toEqual({ a: 2 });
    expect(() => parseKeyValues(["=5"])).toThrow(expect.objectContaining({ code: "USAGE" }));
  });
});

describe("command line", () => {
  it("splits the command, its positionals and the global options wherever they appear", () => {
    const parsed = parseCommandArguments(
      ["call", "-c", "x.json", "calc/add", "a=1", "--json", "--timeout", "2s"],
      "call",
      callCommand.flags,
      callCommand.positionals,
    );
    expect(parsed).toMatchObject({
      positionals: ["calc/add", "a=1"],
      global: { config: "x.json", json: true, quiet: false, verbose: false },
      options: { timeout: 2000 },
    });
    const status = (argv: string[]) =>
      parseCommandArguments(argv, "status", statusCommand.flags, statusCommand.positionals);
    expect(status(["status", "--no-color"]).global.color).toBe(false);
  });

  it("an unknown option is a usage error that points at --help", () => {
    expect(() =>
      parseCommandArguments(
        ["status", "--frobnicate"],
        "status",
        statusCommand.flags,
        statusCommand.positionals,
      ),
    ).toThrow(/--frobnicate.*--help/s);
  });
});

describe("output", () => {
  it("aligns table columns on visible width, colors ignored", () => {
    const colored = styleFor({ isTTY: true }, {});
    const text = table(
      ["A", "BB", "C"],
      [
        [colored.green("long-cell"), "x", "last"],
        ["s", "yyyy", ""],
      ],
      colored,
    );
    const plainLines = text.replace(ANSI_CODES, "").split("\n");
    expect(plainLines).toEqual(["A          BB    C", "long-cell  x     last", "s          yyyy"]);
  });

  it("colors only on a terminal, never with NO_COLOR, TERM=dumb or --no-color", () => {
    expect(styleFor({ isTTY: true }, {}).red("x")).toMatch(ANSI);
    expect(styleFor({ isTTY: false }, {}).red("x")).toBe("x");
    expect(styleFor({ isTTY: true }, { NO_COLOR: "" }).red("x")).toBe("x");
    expect(styleFor({ isTTY: true }, { TERM: "dumb" }).red("x")).toBe("x");
    expect(styleFor({ isTTY: true }, {}, false).red("x")).toBe("x");
  });

  it("shortens descriptions to one line of at most the given width", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), fc.integer({ min: 2, max: 80 }), (text, max) => {
        const short = shorten(text, max);
        expect(short.length).toBeLessThanOrEqual(max);
        expect(short).not.toMatch(/\n/);
      }),
      { numRuns: 200 },
    );
  });
});

describe("runCli in-process", () => {
  const home = emptyHome();
  afterAll(() => rmSync(home, { recursive: true, force: true }));
  const config = join(home, "mcp.json");
  writeFileSync(config, JSON.stringify({ mcpServers: { calc: stdioEntry("normal") } }));

  const path: Record<string, string> = process.env.PATH === undefined ? {} : { PATH: process.env.PATH };
  const run = (args: string[], tty: boolean, env: Record<string, string> = {}) =>
    runCliInProcess(args, { cwd: home, env: { HOME: home, ...path, ...env }, tty });

  it("shows live progress on a terminal's stderr, and colors on its stdout", async () => {
    const result = await run(["status", "-c", config], true);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain("Starting servers");
    expect(result.stdout).toMatch(ANSI);
    expect(result.stdout).toContain("connected");
  });

  it("no progress and no colors when not a terminal; NO_COLOR keeps a terminal plain", async () => {
    const piped = await run(["status", "-c", config], false);
    expect(piped.stderr).toBe("");
    expect(piped.stdout).not.toMatch(ANSI);
    const noColor = await run(["status", "-c", config], true, { NO_COLOR: "1" });
    expect(noColor.stdout).not.toMatch(ANSI);
    expect(noColor.stdout).toMatch(/calc\s+stdio\s+connected\s+6/);
  });

  it("--json on a terminal: stdout holds the one JSON document, progress stays on stderr", async () => {
    const result = await run(["tools", "-c", config, "--json"], true);
    expect(result.code).toBe(0);
    expect(result.stdout).not.toMatch(ANSI);
    expect(JSON.parse(result.stdout).tools).toHaveLength(6);
    expect(result.stderr).toContain("Starting servers");
    const quiet = await run(["tools", "-c", config, "--json", "--quiet"], true);
    expect(quiet.stderr).toBe("");
  });
});
