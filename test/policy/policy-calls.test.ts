import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Bridge, startBridge } from "../../src/index.js";
import { inProcessEntry } from "../helpers/in-process.js";
import { tempDirs } from "../helpers/wait.js";

/**
 * The call policy on a real server that records every call it receives: a refused call is an
 * isError result saying why, and never reaches the server, whatever name it was called by.
 */
const tempDir = tempDirs("mcp-bridge-policy-");

function calls(file: string): string[] {
  try {
    return readFileSync(file, "utf8").split("\n").filter(Boolean);
  } catch {
    return [];
  }
}

describe("the call policy on the library's call path", () => {
  let bridge: Bridge;
  let record: string;

  beforeAll(async () => {
    const dir = tempDir();
    record = join(dir, "calls.log");
    writeFileSync(record, "");
    bridge = await startBridge({
      servers: { files: inProcessEntry("records-calls", {}, ["--record", record]) },
      env: { PATH: process.env.PATH },
      settings: {
        policy: {
          default: "allow",
          rules: [
            { tool: "delete_file", action: "deny", reason: "deleting is not allowed here" },
            { tool: "read_file", args: [{ path: "$.path", glob: "/etc/*" }], action: "deny" },
            { tool: "read_file", args: [{ path: "$.path", regex: "\\.env$" }], action: "ask" },
            { server: "files", tool: "echo", action: "limit", limit: { perMinute: 2 } },
          ],
        },
      },
    });
  }, 30_000);
  afterAll(() => bridge?.close());

  it("denies with an isError result naming the rule, and the server never sees the call", async () => {
    const spellings = [
      "mcp_files_delete_file",
      "files/delete_file",
      "MCP_FILES_DELETE_FILE",
      "files.delete_file",
    ];
    for (const name of spellings) {
      const result = await bridge.call(name, { path: "/x" }, { onError: "result" });
      expect(result.isError).toBe(true);
      // A spelling the bridge does not resolve is unknown, and so not sent either.
      if (result.text.includes("TOOL_NOT_FOUND")) continue;
      expect(result.text).toContain("deleting is not allowed here");
      expect(result.text).toContain("POLICY_DENIED");
    }
    const result = await bridge.call("files/delete_file", { path: "/x" });
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(/rule #1 of the config's policy/);
    expect(calls(record).filter((line) => line.startsWith("delete_file"))).toEqual([]);
  });

  it("is never bypassed by how the tool's name is spelled (property)", async () => {
    const exposed = bridge.tools().find((tool) => tool.tool === "delete_file")?.name ?? "";
    const base = fc.constantFrom(
      exposed,
      "files/delete_file",
      "files.delete_file",
      "files:delete_file",
      "files__delete_file",
    );
    const spelling = fc
      .tuple(base, fc.array(fc.boolean(), { minLength: 40, maxLength: 40 }))
      .map(([name, upper]) => [...name].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join(""));
    await fc.assert(
      fc.asyncProperty(spelling, async (name) => {
        const result = await bridge.call(name, { path: "/x" }, { onError: "result" });
        expect(result.isError).toBe(true);
        expect(result.text).toMatch(/POLICY_DENIED|TOOL_NOT_FOUND/);
      }),
      { numRuns: 100 },
    );
    expect(calls(record).filter((line) => line.startsWith("delete_file"))).toEqual([]);
  });

  it("matches argument values by glob and regex", async () => {
    const denied = await bridge.call("files/read_file", { path: "/etc/passwd" });
    expect(denied.isError).toBe(true);
    const asked = await bridge.call("files/read_file", { path: "/home/me/.env" });
    expect(asked.isError).toBe(true);
    expect(asked.text).toMatch(/nobody can be asked/);
    const approved = await bridge.call(
      "files/read_file",
      { path: "/home/me/.env" },
      { approveCall: (request) => request.tool === "read_file" },
    );
    expect(approved.isError).toBe(false);
    const declined = await bridge.call("files/read_file", { path: "/a/.env" }, { approveCall: () => false });
    expect(declined.text).toMatch(/did not approve/);
    const fine = await bridge.call("files/read_file", { path: "/home/me/notes.txt" });
    expect(fine.text).toBe("contents of /home/me/notes.txt");
    expect(calls(record).filter((line) => line.startsWith("read_file"))).toEqual([
      'read_file {"path":"/home/me/.env"}',
      'read_file {"path":"/home/me/notes.txt"}',
    ]);
  });

  it("limits calls per minute per caller", async () => {
    const texts: string[] = [];
    for (let i = 0; i < 3; i++) texts.push((await bridge.call("files/echo", { text: `a${i}` })).text);
    expect(texts.slice(0, 2)).toEqual(["a0", "a1"]);
    expect(texts[2]).toMatch(/2 times a minute.*RATE_LIMITED/);
    // Another caller has a bucket of its own.
    expect((await bridge.call("files/echo", { text: "b" }, { caller: "other" })).text).toBe("b");
    expect(calls(record).filter((line) => line.startsWith("echo"))).toHaveLength(3);
  });
});
