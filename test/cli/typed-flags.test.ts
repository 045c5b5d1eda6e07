import { describe, expect, it } from "vitest";
import { COMMANDS } from "../../src/apps/cli/command-table.js";
import { callCommand } from "../../src/apps/cli/commands/call-command.js";
import { daemonCommand } from "../../src/apps/cli/commands/daemon-command.js";
import { serveCommand } from "../../src/apps/cli/commands/serve-command.js";
import { toolsCommand } from "../../src/apps/cli/commands/tools-command.js";
import { completionScript } from "../../src/apps/cli/completion.js";
import { commandHelp } from "../../src/apps/cli/help.js";
import { parseCommandArguments } from "../../src/apps/cli/parse-arguments.js";

const serve = (...args: string[]) =>
  parseCommandArguments(["serve", ...args], "serve", serveCommand.flags, serveCommand.positionals).options;
const usage = (message: RegExp) =>
  expect.objectContaining({ code: "USAGE", message: expect.stringMatching(message) });

describe("typed flag values: the parser turns each flag's text into its declared kind", () => {
  it("durations become milliseconds, integers numbers, addresses { host, port }", () => {
    expect(
      serve(
        "--http",
        "8080",
        "--metrics",
        "0.0.0.0:9464",
        "--drain",
        "2m",
        "--session-idle",
        "0",
        "--max-calls",
        "4",
      ),
    ).toMatchObject({
      http: { host: "127.0.0.1", port: 8080 },
      metrics: { host: "0.0.0.0", port: 9464 },
      drain: 120_000,
      "session-idle": 0,
      "max-calls": 4,
    });
    expect(serve("--http", "[::1]:0").http).toEqual({ host: "::1", port: 0 });
    const call = parseCommandArguments(
      ["call", "t", "--timeout", "1500ms", "--max-chars", "10"],
      "call",
      callCommand.flags,
      callCommand.positionals,
    );
    expect(call.options).toMatchObject({ timeout: 1500, "max-chars": 10 });
    const daemon = parseCommandArguments(
      ["daemon", "start", "--idle", "90"],
      "daemon",
      daemonCommand.flags,
      daemonCommand.positionals,
    );
    expect(daemon.options.idle).toBe(90_000);
  });

  it("a bad value is a usage error naming the flag and what it takes, for every kind", () => {
    // Before typed flags, a bad --drain or --session-idle reached parseDuration inside serve: a plain
    // Error (exit 1, INTERNAL) rather than a usage error.
    expect(() => serve("--stdio", "--drain", "soon")).toThrow(usage(/^--drain must be a duration .*"soon"/));
    expect(() => serve("--stdio", "--session-idle", "-1")).toThrow(
      usage(/^--session-idle must be a duration/),
    );
    expect(() => serve("--stdio", "--max-calls", "0")).toThrow(
      usage(/^--max-calls must be a whole number \(1 or more\), got "0"/),
    );
    expect(() => serve("--stdio", "--max-body", "1.5")).toThrow(usage(/^--max-body must be a whole number/));
    expect(() => serve("--http", "localhost")).toThrow(usage(/^--http must be \[HOST:\]PORT/));
    expect(() => serve("--http", "70000")).toThrow(usage(/^--http must be \[HOST:\]PORT/));
    expect(() =>
      parseCommandArguments(
        ["tools", "--format", "xml"],
        "tools",
        toolsCommand.flags,
        toolsCommand.positionals,
      ),
    ).toThrow(usage(/^--format must be one of table, json, openai, anthropic, got "xml"/));
  });

  it("asking for help is never a value error", () => {
    expect(() => serve("--drain", "soon", "--help")).not.toThrow();
  });

  it("help and completion show a value placeholder for every flag that takes one", () => {
    const help = commandHelp(serveCommand);
    for (const flag of ["--http [HOST:]PORT", "--drain DURATION", "--max-calls N", "--metrics [HOST:]PORT"])
      expect(help).toContain(flag);
    expect(completionScript("fish", COMMANDS)).toMatch(/-l drain -r/);
  });
});

describe("usage errors are composed in usage-errors.ts", () => {
  it("no CLI file but usage-errors.ts builds a USAGE error with its own wording", async () => {
    const { readdirSync, readFileSync } = await import("node:fs");
    const { join } = await import("node:path");
    const files = (readdirSync("src/apps/cli", { recursive: true }) as string[])
      .filter((file) => file.endsWith(".ts") && file !== "usage-errors.ts")
      .map((file) => join("src/apps/cli", file));
    const inline = /new McpBridgeError\(\s*ErrorCode\.Usage|\busageError\(/;
    expect(files.filter((file) => inline.test(readFileSync(file, "utf8")))).toEqual([]);
  });
});
