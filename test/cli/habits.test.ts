import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { stdioEntry } from "../fixtures/servers/index.js";
import { cliHome, runCliInProcess } from "../helpers/cli.js";

/** The call habits of mcporter and Claude Code users, against real fixture servers. */

const FILESYSTEM = join(process.cwd(), "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");
const { home, env, config } = cliHome({
  calc: stdioEntry("normal"),
  fs: { command: process.execPath, args: [FILESYSTEM, process.cwd()] },
});
const run = (...args: string[]) => runCliInProcess([...args, "-c", config], { cwd: home, env });

describe("call: the ways other CLIs write a call", () => {
  it.each([
    [["calc.add", "a=2", "b=3"]],
    [["calc.add", "a:2", "b:3"]],
    [["calc.add(a: 2, b: 3)"]],
    [["calc.add(a: 2)", "b=3"]],
    [["add", "a=2", "b:3"]],
    [["calc/add", "a=2", "b=3"]],
  ])("%j adds", async (args) => {
    const result = await run("call", ...args);
    expect(result.stderr).toBe("");
    expect(result.stdout.trim()).toBe("5");
    expect(result.code).toBe(0);
  });

  it("strings in the call expression, quoted either way", async () => {
    const single = await run("call", `calc.echo(text: 'a, "b"')`);
    expect(single.stdout.trim()).toBe('a, "b"');
    const json = await run("call", 'calc.echo(text: "a, b")');
    expect(json.stdout.trim()).toBe("a, b");
  });

  it("a mistyped tool name gets a did-you-mean", async () => {
    const result = await run("call", "calc/ad", "a=1");
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('Did you mean "calc/add"?');
    const bare = await run("call", "read_text_fil", "path=README.md");
    expect(bare.stderr).toContain('Did you mean "read_text_file"?');
  });
});

describe("call: arguments are checked before the call", () => {
  it("an unknown parameter is named, with the nearest one", async () => {
    const result = await run("call", "fs.read_text_file", "bogus=1", "path=README.md");
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("`bogus` is not a parameter of read_text_file");
    const near = await run("call", "fs.read_text_file", "pth=README.md");
    expect(near.stderr).toContain("Did you mean `path`?");
  });

  it("a value of the wrong type is reported in the words typed", async () => {
    const result = await run("call", "calc.add", "a=1", "b=0x10");
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("b: `0x10` is not a number");
    expect(result.stderr).not.toContain("Invalid input");
  });

  it("a missing required parameter is named locally, not with the server's validation text", async () => {
    const result = await run("call", "calc.add", "a=1");
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("add requires `b`, which was not given: add b=...");
    expect(result.stderr).not.toContain("Invalid input");
  });

  it("a mistyped option gets a did-you-mean", async () => {
    const result = await run("call", "calc.add", "a=1", "b=2", "--timout", "5s");
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("Did you mean --timeout?");
  });
});

describe("habits of other tools get a redirect, not only a refusal", () => {
  it.each([
    [["list", "calc", "--schema"], "`mcp-bridge list SERVER --json`"],
    [["config", "add", "x"], "`mcp-bridge add NAME -- COMMAND ARGS...`"],
    [["config", "list"], "`mcp-bridge list` lists the configured servers"],
    [["add", "x", "--scope", "user", "--", "node", "a.js"], "choose the file with `-c FILE`"],
    [["get", "calc"], "`mcp-bridge list NAME`"],
    [["auth", "calc"], "`mcp-bridge auth login SERVER`"],
    [["daemon", "restart"], "`mcp-bridge daemon stop`, then `mcp-bridge daemon start`"],
  ])("%j", async (args, redirect) => {
    const result = await run(...args);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("mcp-bridge has no ");
    expect(result.stderr).toContain(redirect);
  });
});
