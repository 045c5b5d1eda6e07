import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { adHocServers, splitCommandLine } from "../../src/apps/cli/ad-hoc.js";
import { fixturePath, startHttpFixture, stdioEntry } from "../fixtures/servers/index.js";
import { cliHome, runCli } from "../helpers/cli.js";

const singleQuoted = (word: string) => `'${word.replaceAll("'", `'\\''`)}'`;
const doubleQuoted = (word: string) => `"${word.replace(/["\\$`]/g, (c) => `\\${c}`)}"`;
const escaped = (word: string) => (word === "" ? "''" : word.replace(/./gsu, (c) => `\\${c}`));

describe("splitting a --stdio command line (no shell)", () => {
  it("quotes, escapes and blanks as a POSIX shell reads them", () => {
    expect(splitCommandLine(`node  'my server.js' --name "a \\"b\\" c" x\\ y ''`)).toEqual([
      "node",
      "my server.js",
      "--name",
      'a "b" c',
      "x y",
      "",
    ]);
    expect(splitCommandLine(`echo '$HOME' "\\n" a"b"'c'`)).toEqual(["echo", "$HOME", "\\n", "abc"]);
    expect(() => splitCommandLine(`node 'server.js`)).toThrow(/Unbalanced '/);
    expect(() => splitCommandLine(`node "server.js`)).toThrow(/Unbalanced "/);
    expect(() => splitCommandLine(`node server.js\\`)).toThrow(/Trailing backslash/);
  });

  it("any argv joined with any quoting style splits back to itself", () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: "binary" }), { minLength: 1, maxLength: 6 }),
        fc.constantFrom(singleQuoted, doubleQuoted, escaped),
        fc.constantFrom(" ", "  ", "\t", " \n "),
        (words, quote, blank) => {
          expect(splitCommandLine(words.map(quote).join(blank))).toEqual(words);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("names servers after the script or package a launcher runs, else the program or host", () => {
    expect(
      adHocServers({
        stdio: [
          "npx -y @modelcontextprotocol/server-memory@1.2.0",
          "node /x/calc.js",
          "./tool",
          "node /y/calc.mjs",
        ],
        http: ["http://127.0.0.1:3000/mcp"],
      }),
    ).toEqual({
      memory: { command: "npx", args: ["-y", "@modelcontextprotocol/server-memory@1.2.0"] },
      calc: { command: "node", args: ["/x/calc.js"] },
      tool: { command: "./tool", args: [] },
      calc_2: { command: "node", args: ["/y/calc.mjs"] },
      "127.0.0.1_3000": { type: "http", url: "http://127.0.0.1:3000/mcp" },
    });
    expect(Object.keys(adHocServers({ stdio: ["a", "b"], name: ["one"] }) ?? {})).toEqual(["one", "b"]);
    expect(adHocServers({})).toBeUndefined();
    expect(() => adHocServers({ http: ["not a url"] })).toThrow(/--http needs a URL/);
    expect(() => adHocServers({ stdio: ["  "] })).toThrow(/--stdio needs a command/);
  });
});

describe("ad-hoc servers from the built CLI", () => {
  const { home, env, config } = cliHome({ configured: stdioEntry("normal") });
  const stdio = `"${process.execPath}" "${fixturePath("normal")}"`;

  it("call --stdio runs the server without any config file", async () => {
    const run = await runCli(["call", "normal/add", "a=2", "b=3", "--stdio", stdio, "--json"], {
      cwd: home,
      env,
    });
    expect(run.stderr).toBe("");
    expect(JSON.parse(run.stdout)).toMatchObject({ text: "5" });
  });

  it("--http uses a Streamable HTTP server; --name names it", async () => {
    await using server = await startHttpFixture("normal");
    const run = await runCli(["tools", "--http", server.url, "--name", "remote", "--json"], {
      cwd: home,
      env,
    });
    const tools = JSON.parse(run.stdout).tools as { server: string }[];
    expect(tools.length).toBeGreaterThan(0);
    expect(new Set(tools.map((t) => t.server))).toEqual(new Set(["remote"]));
  });

  it("with --config, the ad-hoc servers come on top of the file's", async () => {
    const run = await runCli(["list", "--config", config, "--stdio", stdio, "--json"], { cwd: home, env });
    expect(JSON.parse(run.stdout).servers.map((s: { name: string }) => s.name)).toEqual([
      "configured",
      "normal",
    ]);
  });

  it("an unbalanced quote is a usage error (exit 2) that says so", async () => {
    const run = await runCli(["status", "--stdio", "node 'x.js"], { cwd: home, env });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("Unbalanced '");
  });
});
