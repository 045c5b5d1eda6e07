import { rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { PassThrough } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";
import type { CliIO } from "../../src/apps/cli/cli-io.js";
import { runCli as runCliInProcess } from "../../src/apps/cli/run-cli.js";
import { terminalElicitation } from "../../src/apps/cli/terminal-elicitation.js";
import { startBridge } from "../../src/index.js";
import { fixturePath } from "../fixtures/servers/index.js";
import { cliEnv, emptyHome, runCli } from "../helpers/cli.js";

// The fixture sits beside the others in dist/; located through a known one to keep the shared name list untouched.
const asksForSecret = () => join(dirname(fixturePath("normal")), "asks-for-secret.js");

describe("elicitation", () => {
  it("without a handler, a request is declined even when the server's schema supplies every default", async () => {
    await using bridge = await startBridge({
      servers: { asker: { command: process.execPath, args: [asksForSecret()] } },
      env: {},
    });
    const result = await bridge.call("asker/login", {});
    expect(JSON.parse(result.text)).toEqual({ action: "decline" });
  }, 20_000);

  it("a host handler answers and sees the server's message", async () => {
    const seen: string[] = [];
    await using bridge = await startBridge({
      servers: { asker: { command: process.execPath, args: [asksForSecret()] } },
      env: {},
      onElicitation: (request) => {
        seen.push(request.message);
        return { action: "accept", content: { apiKey: "typed-by-user" } };
      },
    });
    const result = await bridge.call("asker/login", {});
    expect(JSON.parse(result.text)).toEqual({ action: "accept", content: { apiKey: "typed-by-user" } });
    expect(seen).toEqual(["Give me your API key"]);
  }, 20_000);
});

describe("elicitation in the CLI", () => {
  const home = emptyHome();
  afterAll(() => rmSync(home, { recursive: true, force: true }));
  const config = join(home, "asker.json");
  writeFileSync(
    config,
    JSON.stringify({ mcpServers: { asker: { command: process.execPath, args: [asksForSecret()] } } }),
  );

  const onTerminal = async (answers: string) => {
    const stdin = Object.assign(new PassThrough(), { isTTY: true });
    stdin.end(answers);
    const stderr = Object.assign(new PassThrough(), { isTTY: true });
    const stdout = new PassThrough();
    let out = "";
    let err = "";
    stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    stderr.on("data", (chunk: Buffer) => {
      err += chunk.toString();
    });
    const io: CliIO = {
      stdin,
      stdout,
      stderr,
      env: { HOME: home, PATH: process.env.PATH, NO_COLOR: "1" },
      cwd: home,
    };
    const code = await runCliInProcess(["call", "asker/login", "-c", config], io);
    return { code, out, err };
  };

  it("without a terminal it declines", async () => {
    const run = await runCli(["call", "asker/login", "-c", config], { cwd: home, env: cliEnv(home) });
    expect(JSON.parse(run.stdout)).toEqual({ action: "decline" });
  }, 20_000);

  it("on a terminal it asks the person, shows the server's message, and never fills in the server's default", async () => {
    const typed = await onTerminal("y\nmy-own-key\n");
    expect(typed.err).toContain("asks: Give me your API key");
    expect(JSON.parse(typed.out)).toEqual({ action: "accept", content: { apiKey: "my-own-key" } });

    const refused = await onTerminal("n\n");
    expect(JSON.parse(refused.out)).toEqual({ action: "decline" });

    const empty = await onTerminal("y\n\n");
    expect(JSON.parse(empty.out)).toEqual({ action: "decline" });
  }, 30_000);
});

describe("terminal elicitation through a command's own reader", () => {
  it("asks through the given function (chat's prompt), never through stdin, and converts answers", async () => {
    const asked: string[] = [];
    const answers = ["y", "42", "yes"];
    const stderr = new PassThrough();
    const io: CliIO = { stdout: new PassThrough(), stderr, env: {}, cwd: "/" };
    const handler = terminalElicitation(io, async (question) => {
      asked.push(question);
      return answers.shift();
    });
    const answer = await handler?.({
      server: "s",
      message: "How many?",
      requestedSchema: {
        type: "object",
        properties: { count: { type: "integer", default: 7 }, sure: { type: "boolean" } },
        required: ["count"],
      },
    });
    expect(answer).toEqual({ action: "accept", content: { count: 42, sure: true } });
    expect(asked).toHaveLength(3);
  });
});
