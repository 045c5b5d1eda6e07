import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Bridge } from "../../src/bridge/api.js";
import { startBridge } from "../../src/bridge/bridge.js";
import { loadTokenizer } from "../../src/util/token-count.js";
import { stdioEntry } from "../fixtures/servers/index.js";
import { inProcessEntry } from "../helpers/in-process.js";
import { tempDirs } from "../helpers/wait.js";

const tempDir = tempDirs("mcp-bridge-overflow-");
const long = Array.from({ length: 3000 }, (_, i) => `line ${i}: the quick brown fox`).join("\n");

let bridge: Bridge;
let dir: string;
beforeAll(async () => {
  dir = tempDir();
  bridge = await startBridge({
    servers: { calc: inProcessEntry("normal", { maxResultChars: 2000 }) },
    results: { overflow: "file", overflowDir: dir },
  });
}, 30_000);
afterAll(() => bridge?.close());

describe("large results", () => {
  it("overflow: file keeps the head within the limit and the whole result in a private file", async () => {
    const result = await bridge.call("calc/echo", { text: long });
    expect(result.text.length).toBeLessThanOrEqual(2000);
    expect(result.text.startsWith("line 0: the quick brown fox")).toBe(true);
    const path = /is in the file (\S+);/.exec(result.text)?.[1] as string;
    expect(path.startsWith(dir)).toBe(true);
    expect(readFileSync(path, "utf8")).toBe(long);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(result.truncated?.originalChars).toBe(long.length);
  });

  it("a small result is untouched and writes no file", async () => {
    expect((await bridge.call("calc/echo", { text: "short" })).text).toBe("short");
  });

  it("a token limit cuts at a token boundary, counted with the real tokenizer, marker and note included", async () => {
    const tokenizer = await loadTokenizer();
    const result = await bridge.call(
      "calc/echo",
      { text: long },
      { maxResultChars: 1_000_000, maxResultTokens: 300 },
    );
    expect(tokenizer.count(result.text)).toBeLessThanOrEqual(300);
    expect(result.text).toContain("is in the file");
    expect(result.text.startsWith("line 0:")).toBe(true);
    expect(tokenizer.count(long)).toBeGreaterThan(3000);
  });
});

describe("result limits from the config file", () => {
  it("maxResultTokens, resultOverflow and a relative resultOverflowDir apply; a server's own maxResultTokens wins", async () => {
    const folder = tempDir();
    const file = join(folder, "mcp.json");
    writeFileSync(
      file,
      JSON.stringify({
        settings: { maxResultTokens: 400, resultOverflow: "file", resultOverflowDir: "results" },
        mcpServers: {
          wide: stdioEntry("normal", { maxResultChars: 1_000_000 }),
          narrow: stdioEntry("normal", { maxResultChars: 1_000_000, max_result_tokens: 100 }),
        },
      }),
    );
    const configured = await startBridge({ config: file });
    try {
      const tokenizer = await loadTokenizer();
      const wide = await configured.call("wide/echo", { text: long });
      const narrow = await configured.call("narrow/echo", { text: long });
      expect(tokenizer.count(wide.text)).toBeLessThanOrEqual(400);
      expect(tokenizer.count(wide.text)).toBeGreaterThan(100);
      expect(tokenizer.count(narrow.text)).toBeLessThanOrEqual(100);
      const path = /is in the file (\S+);/.exec(wide.text)?.[1] as string;
      expect(path.startsWith(join(folder, "results"))).toBe(true);
      expect(readFileSync(path, "utf8")).toBe(long);
      expect(readdirSync(join(folder, "results"))).toHaveLength(2);
    } finally {
      await configured.close();
    }
  });

  it("a bad value is a warning naming the key, and the default stays", async () => {
    const file = join(tempDir(), "mcp.json");
    writeFileSync(file, JSON.stringify({ settings: { resultOverflow: "disk" }, mcpServers: {} }));
    const configured = await startBridge({ config: file });
    try {
      expect(configured.config.warnings.map((w) => w.message).join("\n")).toContain(
        '"resultOverflow" must be "truncate" or "file"',
      );
      expect(configured.config.settings.resultOverflow).toBeUndefined();
    } finally {
      await configured.close();
    }
  });
});
