import { describe, expect, it } from "vitest";
import { statusDocument, toolsDocument } from "../../src/apps/daemon/documents.js";
import { loadConfig, startBridge } from "../../src/index.js";
import { stdioEntry } from "../fixtures/servers/index.js";
import { cliHome, runCliInProcess } from "../helpers/cli.js";
import { inProcessEntry } from "../helpers/in-process.js";

/** `tags`: free labels per server, and `--tag` selecting servers by them. */

describe("the tags key", () => {
  it("is read as a list of labels (repeats dropped, absent when none) and refused otherwise", async () => {
    const config = await loadConfig({
      servers: {
        a: { command: "a", tags: ["team-x", "db", "team-x"] },
        b: { command: "b", tags: [] },
        c: { command: "c" },
      },
    });
    expect(config.servers.map((s) => [s.name, s.tags])).toEqual([
      ["a", ["team-x", "db"]],
      ["b", undefined],
      ["c", undefined],
    ]);
    for (const tags of ["team-x", [1], [""]]) {
      const loaded = await loadConfig({ servers: { d: { command: "d", tags } } });
      expect(loaded.servers).toEqual([]);
      expect(loaded.skipped[0]?.reason).toMatch(/"tags" must be a list of strings/);
    }
  });

  it("the bridge's tags option starts only the servers with one of the labels", async () => {
    await using bridge = await startBridge({
      servers: {
        a: inProcessEntry("normal", { tags: ["team-x"] }),
        b: inProcessEntry("normal", { tags: ["other", "db"] }),
        c: inProcessEntry("normal"),
      },
      tags: ["team-x", "db"],
      catalogCache: false,
      pins: false,
    });
    expect(bridge.servers().map((s) => [s.name, s.state])).toEqual([
      ["a", "connected"],
      ["b", "connected"],
      ["c", "idle"],
    ]);
  });

  it("the documents (as a daemon running every server answers) keep the tagged servers only", async () => {
    await using bridge = await startBridge({
      servers: { a: inProcessEntry("normal", { tags: ["team-x"] }), b: inProcessEntry("normal") },
      catalogCache: false,
      pins: false,
    });
    const status = statusDocument(bridge, { tags: ["team-x"] }).document as { servers: { name: string }[] };
    expect(status.servers.map((s) => s.name)).toEqual(["a"]);
    const tools = toolsDocument(bridge, { format: "json", tags: ["team-x"] }).document as {
      tools: { server: string }[];
    };
    expect(new Set(tools.tools.map((t) => t.server))).toEqual(new Set(["a"]));
    expect(toolsDocument(bridge, { format: "json", tags: ["none"] }).document).toEqual({ tools: [] });
  });

  it("tools --tag and status --tag on the command line start and show only the tagged servers", async () => {
    const { home, env, config } = cliHome({
      calc: { ...stdioEntry("normal"), tags: ["math"] },
      other: { ...stdioEntry("normal"), tags: ["misc"] },
    });
    const tools = await runCliInProcess(["tools", "-c", config, "--tag", "math", "--json", "--no-daemon"], {
      cwd: home,
      env,
    });
    expect(tools.code).toBe(0);
    const listed = JSON.parse(tools.stdout) as { tools: { server: string }[] };
    expect(new Set(listed.tools.map((t) => t.server))).toEqual(new Set(["calc"]));
    const status = await runCliInProcess(["status", "-c", config, "--tag", "misc", "--json", "--no-daemon"], {
      cwd: home,
      env,
    });
    expect(status.code).toBe(0);
    const rows = JSON.parse(status.stdout) as { servers: { name: string; state: string }[] };
    expect(rows.servers.map((s) => [s.name, s.state])).toEqual([["other", "connected"]]);
  });
});
