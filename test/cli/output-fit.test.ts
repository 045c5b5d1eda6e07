import { existsSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { stdioEntry } from "../fixtures/servers/index.js";
import { cliHome, runCliInProcess } from "../helpers/cli.js";

/** Output that fits: the terminal's width, the asked length, JSON where --json is given. */

const FILESYSTEM = join(process.cwd(), "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");
const { home, env, config } = cliHome({
  calc: stdioEntry("normal"),
  modern: stdioEntry("modern-surface"),
  fs: { command: process.execPath, args: [FILESYSTEM, process.cwd()] },
});
const run = (args: string[], extra: Record<string, string> = {}) =>
  runCliInProcess([...args, "-c", config], { cwd: home, env: { ...env, ...extra } });

describe("tools fits the terminal", () => {
  it("at 80 columns no line wraps, and no [MCP:server] prefix repeats the SERVER column", async () => {
    const result = await run(["tools"], { COLUMNS: "80" });
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split("\n");
    expect(lines.some((line) => line.startsWith("mcp_fs_read_text_file"))).toBe(true);
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(80);
    expect(result.stdout).not.toContain("[MCP:");
    // --json keeps everything whole.
    const json = JSON.parse((await run(["tools", "--json", "--server", "calc"], { COLUMNS: "80" })).stdout);
    expect(json.tools[0].description).toContain("[MCP:calc]");
  });
});

describe("--max-chars and --full", () => {
  it("--max-chars 10 keeps some of the result, not only the marker", async () => {
    const result = await run(["call", "calc/echo", "text=abcdefghijklmnopqrstuvwxyz", "--max-chars", "10"]);
    expect(result.code).toBe(0);
    expect(result.stdout.startsWith("abcd")).toBe(true);
    expect(result.stdout.trimEnd().length).toBeLessThanOrEqual(10);
  });

  it("read and prompt take --max-chars and --full like call", async () => {
    const read = await run(["read", "modern://readme", "--max-chars", "12"]);
    expect(read.code).toBe(0);
    expect(read.stdout.startsWith("modern")).toBe(true);
    expect(read.stdout).not.toContain("era resource");
    const full = await run(["read", "modern://readme", "--full"]);
    expect(full.stdout).toContain("modern era resource");
    const prompt = await run([
      "prompt",
      "modern/pick",
      "colour=a-very-long-colour-name-indeed",
      "--max-chars",
      "15",
    ]);
    expect(prompt.stderr).toBe("");
    expect(prompt.code).toBe(0);
    expect(prompt.stdout).not.toContain("indeed");
    const whole = await run(["prompt", "modern/pick", "colour=a-very-long-colour-name-indeed", "--full"]);
    expect(whole.stdout).toContain("indeed");
  });
});

describe("JSON where --json is given", () => {
  it("--version --json and completion --json print one JSON document", async () => {
    const version = await runCliInProcess(["--version", "--json"], { cwd: home, env });
    expect(JSON.parse(version.stdout)).toMatchObject({ name: "mcp-bridge", version: expect.any(String) });
    const completion = await runCliInProcess(["completion", "bash", "--json"], { cwd: home, env });
    expect(JSON.parse(completion.stdout)).toMatchObject({
      shell: "bash",
      script: expect.stringContaining("complete"),
    });
  });
});

describe("config show masks only secrets", () => {
  it("a plain env value stays readable; a secret-named one and a header are masked", async () => {
    const masked = cliHome({
      plain: { command: "node", args: ["x.js"], env: { COUNT: "100000", API_TOKEN: "tok-abcdef-123456" } },
      web: {
        url: "https://example.com/mcp",
        headers: { Authorization: "Bearer hdr-secret-9876", Accept: "application/json" },
      },
    });
    const shown = await runCliInProcess(["config", "show", "--json", "-c", masked.config], {
      cwd: masked.home,
      env: masked.env,
    });
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain("100000");
    expect(shown.stdout).toContain("application/json");
    expect(shown.stdout).not.toContain("tok-abcdef-123456");
    expect(shown.stdout).not.toContain("hdr-secret-9876");
  });
});

describe("serve checks its port before starting servers", () => {
  it("a port in use is a usage error, and no server was started", async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const port = (taken.address() as { port: number }).port;
    const marker = join(home, "started");
    const starts = cliHome({
      marks: {
        command: process.execPath,
        args: ["-e", `require("fs").writeFileSync(${JSON.stringify(marker)}, "")`],
      },
    });
    try {
      const result = await runCliInProcess(["serve", "--http", String(port), "-c", starts.config], {
        cwd: starts.home,
        env: starts.env,
      });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain("in use");
      expect(existsSync(marker)).toBe(false);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});
