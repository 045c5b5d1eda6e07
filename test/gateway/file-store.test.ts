import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { SessionRecord } from "../../src/apps/gateway/cluster/cluster-store.js";
import { openFileStore } from "../../src/apps/gateway/cluster/file-store.js";
import { tempDirs } from "../helpers/wait.js";

const tempDir = tempDirs("mcp-bridge-file-store-");
const record = (owner: string): SessionRecord => ({
  owner,
  ownerUrl: "http://127.0.0.1:1/mcp",
  identityHash: "a".repeat(64),
  init: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" } },
  logLevel: "debug",
  subscriptions: ["file:///x"],
});

describe.runIf(process.platform !== "win32")("the gateway's state folder (serve --state-dir)", () => {
  it("keeps records across a new store on the same folder (a restart), 0700 folder and 0600 files", async () => {
    const dir = join(tempDir(), "state");
    const before = openFileStore({ dir, replicaId: "run-1" });
    await before.saveSession("s1", record("run-1"), 60_000);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const files = readdirSync(join(dir, "sessions"));
    expect(files).toHaveLength(1);
    expect(statSync(join(dir, "sessions", files[0] as string)).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, "state.key")).mode & 0o777).toBe(0o600);
    // The session id is not a file name: a name is its hash.
    expect(files[0]).not.toContain("s1");

    const after = openFileStore({ dir, replicaId: "run-2" });
    expect(await after.session("s1")).toEqual(record("run-1"));
    expect(await after.replicaAlive("run-1")).toBe(false);
    expect(await after.replicaAlive("run-2")).toBe(true);
    expect(await after.claimSession("s1", "someone-else", record("run-2"), 60_000)).toBe(false);
    expect(await after.claimSession("s1", "run-1", record("run-2"), 60_000)).toBe(true);
    expect((await after.session("s1"))?.owner).toBe("run-2");
    await after.dropSession("s1", "run-1");
    expect(await after.session("s1")).toBeDefined();
    await after.dropSession("s1", "run-2");
    expect(await after.session("s1")).toBeUndefined();
  });

  it("believes no record it did not sign, and forgets expired ones (also at start)", async () => {
    const dir = join(tempDir(), "state");
    const store = openFileStore({ dir, replicaId: "r" });
    await store.saveSession("planted", record("r"), 60_000);
    await store.saveSession("expired", record("r"), -1);
    const sessions = join(dir, "sessions");
    const [planted] = readdirSync(sessions).filter(
      (name) => (readFileSync(join(sessions, name), "utf8").split("\n")[0] as string) > String(Date.now()),
    );
    const file = join(sessions, planted as string);
    const text = readFileSync(file, "utf8");
    writeFileSync(file, text.replace('"debug"', '"error"'));
    expect(await store.session("planted")).toBeUndefined();
    expect(await store.session("expired")).toBeUndefined();
    // Another key (another folder's) does not open them either.
    await store.saveSession("kept", record("r"), 60_000);
    const other = openFileStore({ dir, replicaId: "r", secret: new Uint8Array(32).fill(7) });
    expect(await other.session("kept")).toBeUndefined();
    writeFileSync(join(sessions, "left.tmp"), "x");
    openFileStore({ dir, replicaId: "r" });
    expect(readdirSync(sessions).some((name) => name.endsWith(".tmp"))).toBe(false);
  });
});
