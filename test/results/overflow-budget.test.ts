import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startBridge } from "../../src/bridge/bridge.js";
import { defaultOverflowDir, OverflowFiles } from "../../src/results/overflow.js";
import { stdioEntry } from "../fixtures/servers/index.js";
import { inProcessEntry } from "../helpers/in-process.js";
import { secondUser } from "../helpers/second-user.js";
import { tempDirs } from "../helpers/wait.js";

const tempDir = tempDirs("mcp-bridge-overflow-budget-");
const tool = { server: "s", tool: "t" };
const pathIn = (note: string | undefined) => /is in the file (\S+);/.exec(note ?? "")?.[1] as string;
const long = Array.from({ length: 3000 }, (_, i) => `line ${i}: the quick brown fox`).join("\n");
const unix = process.platform !== "win32";
const other = secondUser();

describe("overflow files stay within their budget", () => {
  it("the oldest files go first when a new one would pass maxBytes; one larger than the budget is not written", () => {
    const dir = tempDir();
    const files = new OverflowFiles();
    const budget = { maxBytes: 3000, maxAgeMs: 60_000 };
    const first = pathIn(files.write("a".repeat(1200), tool, dir, budget));
    utimesSync(first, new Date(Date.now() - 3000), new Date(Date.now() - 3000));
    const second = pathIn(files.write("b".repeat(1200), tool, dir, budget));
    utimesSync(second, new Date(Date.now() - 2000), new Date(Date.now() - 2000));
    const third = pathIn(files.write("c".repeat(1200), tool, dir, budget));
    expect(existsSync(first)).toBe(false);
    expect(existsSync(second)).toBe(true);
    expect(existsSync(third)).toBe(true);
    expect(files.write("d".repeat(3001), tool, dir, budget)).toBeUndefined();
    const total = readdirSync(dir).reduce((sum, name) => sum + statSync(join(dir, name)).size, 0);
    expect(total).toBeLessThanOrEqual(3000);
  });

  it("files older than maxAgeMs are removed; files that are not overflow files are never touched", () => {
    const dir = tempDir();
    const files = new OverflowFiles();
    const old = pathIn(files.write("old", tool, dir));
    const dayAgo = new Date(Date.now() - 25 * 60 * 60 * 1000);
    utimesSync(old, dayAgo, dayAgo);
    const notes = join(dir, "notes.txt");
    mkdirSync(join(dir, "keep"));
    symlinkSync(notes, join(dir, "1700000000000-x-y-0123abcd.txt"));
    files.write("new", tool, dir);
    expect(existsSync(old)).toBe(false);
    expect(existsSync(join(dir, "keep"))).toBe(true);
    expect(readdirSync(dir)).toContain("1700000000000-x-y-0123abcd.txt");
  });

  it("close() removes the bridge's files; keepOverflowFiles keeps them", async () => {
    for (const keep of [false, true]) {
      const dir = tempDir();
      const bridge = await startBridge({
        servers: { calc: inProcessEntry("normal", { maxResultChars: 2000 }) },
        results: { overflow: "file", overflowDir: dir, keepOverflowFiles: keep },
      });
      let path: string;
      try {
        path = pathIn((await bridge.call("calc/echo", { text: long })).text);
        expect(existsSync(path)).toBe(true);
      } finally {
        await bridge.close();
      }
      expect(existsSync(path)).toBe(keep);
    }
  });
});

describe("the budget from the config file", () => {
  it("resultOverflowMaxBytes and resultOverflowMaxAge are read as settings; a result over the size budget is only truncated", async () => {
    const folder = tempDir();
    const file = join(folder, "mcp.json");
    writeFileSync(
      file,
      JSON.stringify({
        settings: {
          resultOverflow: "file",
          resultOverflowDir: "results",
          result_overflow_max_bytes: 1000,
          resultOverflowMaxAge: "2h",
        },
        mcpServers: { calc: stdioEntry("normal", { maxResultChars: 500 }) },
      }),
    );
    const bridge = await startBridge({ config: file });
    try {
      expect(bridge.config.settings.resultOverflowMaxBytes).toBe(1000);
      expect(bridge.config.settings.resultOverflowMaxAgeMs).toBe(2 * 60 * 60 * 1000);
      const big = await bridge.call("calc/echo", { text: long });
      expect(big.text).not.toContain("is in the file");
      const small = await bridge.call("calc/echo", { text: "y".repeat(900) });
      expect(pathIn(small.text).startsWith(join(folder, "results"))).toBe(true);
    } finally {
      await bridge.close();
    }
  });
});

describe.skipIf(!unix)("the overflow folder is never chmod-ed nor followed", () => {
  it("a setgid 2775 team folder keeps its bits; the files go to a private subfolder in it", () => {
    const team = join(tempDir(), "team");
    mkdirSync(team);
    chmodSync(team, 0o2775);
    const file = pathIn(new OverflowFiles().write("x", tool, team));
    expect(statSync(team).mode & 0o7777).toBe(0o2775);
    expect(file.startsWith(join(team, `mcp-bridge-${process.getuid?.()}`))).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it.skipIf(typeof other === "string")(
    "a link planted by another user at the folder's path is refused: its target keeps its mode and gets no file",
    () => {
      if (typeof other === "string") return;
      const shared = tempDir();
      chmodSync(shared, 0o1777);
      const victim = join(shared, "victim");
      other.run("mkdir", ["-m", "0777", victim]);
      other.run("ln", ["-s", victim, join(shared, "results")]);
      expect(new OverflowFiles().write("secret result", tool, join(shared, "results"))).toBeUndefined();
      expect(statSync(victim).mode & 0o777).toBe(0o777);
      expect(readdirSync(victim)).toEqual([]);
      // A folder the other user created at the path (not a link) is refused too.
      const planted = join(shared, "planted");
      mkdirSync(planted, { mode: 0o755 });
      chownSync(planted, other.uid, other.gid);
      expect(new OverflowFiles().write("secret result", tool, planted)).toBeUndefined();
      expect(readdirSync(planted)).toEqual([]);
    },
  );

  it.skipIf(typeof other === "string")(
    "the default folder, made first by another user (0777), is refused, not used as a parent",
    () => {
      if (typeof other === "string") return;
      const temp = tempDir();
      chmodSync(temp, 0o1777);
      const saved = process.env.TMPDIR;
      process.env.TMPDIR = temp;
      try {
        const planted = defaultOverflowDir();
        expect(planted.startsWith(temp)).toBe(true);
        other.run("mkdir", ["-m", "0777", planted]);
        chmodSync(planted, 0o777);
        expect(new OverflowFiles().write("secret result", tool)).toBeUndefined();
        expect(readdirSync(planted)).toEqual([]);
        // Named by the user, the same shared folder is a parent: the files go to a subfolder of ours.
        const file = pathIn(new OverflowFiles().write("x", tool, planted));
        expect(file.startsWith(join(planted, `mcp-bridge-${process.getuid?.()}`))).toBe(true);
        // The default folder made by us is used.
        rmSync(planted, { recursive: true, force: true });
        const ours = pathIn(new OverflowFiles().write("y", tool));
        expect(ours.startsWith(planted)).toBe(true);
        expect(statSync(planted).mode & 0o777).toBe(0o700);
      } finally {
        if (saved === undefined) delete process.env.TMPDIR;
        else process.env.TMPDIR = saved;
      }
    },
  );
});
