import { spawnSync } from "node:child_process";
import { chmodSync, chownSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { afterAll, describe, expect, it } from "vitest";

/**
 * The bundled notes server keeps each user's notes in that user's own private folder (issue 25, item 12):
 * it used to share `os.tmpdir()/mcp-bridge-notes` between users, so one user's notes showed for everyone
 * and the first user's folder kept the others from writing. The second user here is a real Unix user.
 */
const NOTES = resolve("dist/examples/servers/notes.js");
const OTHER = "mcpbridge-other";
const temps: string[] = [];
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});
function temp(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  temps.push(dir);
  return dir;
}

/** The other user's uid and gid, creating the user if needed; a reason instead when that is impossible. */
function otherUser(): { uid: number; gid: number } | string {
  if (process.getuid?.() !== 0) return "not running as root: cannot create or become a second Unix user";
  const id = (flag: string) => spawnSync("id", [flag, OTHER], { encoding: "utf8" });
  if (id("-u").status !== 0) spawnSync("useradd", ["-M", "-r", OTHER], { encoding: "utf8" });
  const uid = id("-u");
  const gid = id("-g");
  if (uid.status !== 0 || gid.status !== 0) return `could not create the Unix user ${OTHER} (useradd failed)`;
  if (spawnSync("setpriv", ["--version"]).status !== 0) return "setpriv is not installed";
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

/**
 * The notes server as the other user can run it: the build itself when that user can read it and its
 * packages, else the same server bundled into one file in a folder it can read (a checkout inside a
 * private folder, `/root` or a `mktemp -d`, is closed to other users); or why neither can be had.
 */
async function notesFor(user: { uid: number; gid: number }): Promise<string | { skip: string }> {
  const probe = `const fs = require("node:fs"); for (const file of process.argv.slice(1)) fs.accessSync(file, fs.constants.R_OK);`;
  const needed = [NOTES, resolve("node_modules/@modelcontextprotocol/server/package.json")];
  const asUser = [`--reuid=${user.uid}`, `--regid=${user.gid}`, "--clear-groups", "--", process.execPath];
  if (spawnSync("setpriv", [...asUser, "-e", probe, ...needed]).status === 0) return NOTES;
  if (spawnSync("setpriv", [...asUser, "--version"]).status !== 0)
    return { skip: `the other user cannot run ${process.execPath}` };
  let rolldown: typeof import("rolldown").rolldown;
  try {
    ({ rolldown } = await import("rolldown"));
  } catch {
    return {
      skip: "the other user cannot read the checkout, and rolldown (to copy the server out) is missing",
    };
  }
  const dir = temp("mcp-bridge-notes-server-");
  chmodSync(dir, 0o755);
  const bundle = await rolldown({ input: NOTES, platform: "node", logLevel: "silent" });
  try {
    await bundle.write({ file: join(dir, "notes.mjs"), format: "esm", inlineDynamicImports: true });
  } finally {
    await bundle.close();
  }
  return join(dir, "notes.mjs");
}

const other = otherUser();
const otherNotes = typeof other === "string" ? { skip: other } : await notesFor(other);
if (typeof otherNotes !== "string")
  console.warn(`notes-server second-user tests skipped: ${otherNotes.skip}`);
const asOther = typeof other === "string" || typeof otherNotes !== "string" ? undefined : other;

/** A client of the notes server run as this user, or as the other user (setpriv keeps the environment). */
async function notes(env: Record<string, string>, user?: { uid: number; gid: number }) {
  const client = new Client({ name: "notes-test", version: "1.0.0" });
  const base = { PATH: process.env.PATH ?? "", ...env };
  const command = user
    ? {
        command: "setpriv",
        args: [
          `--reuid=${user.uid}`,
          `--regid=${user.gid}`,
          "--clear-groups",
          "--",
          process.execPath,
          otherNotes as string,
        ],
      }
    : { command: process.execPath, args: [NOTES] };
  await client.connect(new StdioClientTransport({ ...command, env: base, stderr: "pipe" }));
  const call = async (name: string, args: Record<string, unknown> = {}) => {
    const result = (await client.callTool({ name, arguments: args })) as {
      content: { text: string }[];
      isError?: boolean;
    };
    return { text: result.content.map((c) => c.text).join("\n"), isError: result.isError === true };
  };
  return { client, call, [Symbol.asyncDispose]: () => client.close() };
}

/** A home folder owned by the given user, as a real user's would be. */
function homeOf(user?: { uid: number; gid: number }): string {
  const home = temp("mcp-bridge-notes-home-");
  if (user) chownSync(home, user.uid, user.gid);
  return home;
}

describe("bundled notes server", () => {
  it("keeps notes in the user's cache folder, created 0700, the file 0600", async () => {
    const home = homeOf();
    await using server = await notes({ HOME: home });
    expect((await server.call("create", { title: "Mine", body: "x" })).isError).toBe(false);
    const dir = join(home, ".cache", "mcp-bridge", "notes");
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, "notes.json")).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(dir, "notes.json"), "utf8")).toContain("Mine");
  });

  it("reading an unknown note is an error: an isError result, and an MCP error for the resource", async () => {
    await using server = await notes({ HOME: homeOf() });
    const read = await server.call("read", { id: "nope" });
    expect(read).toEqual({ isError: true, text: "No note with id nope. Use list to see the ids." });
    await expect(server.client.readResource({ uri: "note://nope" })).rejects.toThrow(/No note with id nope/);
  });

  it.skipIf(asOther === undefined)(
    "another user neither sees my notes nor is kept from writing",
    async () => {
      const user = asOther as { uid: number; gid: number };
      {
        await using mine = await notes({ HOME: homeOf() });
        expect((await mine.call("create", { title: "Root's secret", body: "s" })).isError).toBe(false);
      }
      await using theirs = await notes({ HOME: homeOf(user) }, user);
      expect(await theirs.call("list")).toEqual({ isError: false, text: "No notes yet." });
      const created = await theirs.call("create", { title: "Theirs", body: "t" });
      expect(created.isError, created.text).toBe(false);
      expect((await theirs.call("list")).text).toMatch(/^\S+ {2}Theirs$/);
    },
  );

  for (const plant of ["folder", "symlink"] as const) {
    it.skipIf(asOther === undefined)(
      `refuses a ${plant} another user planted in a shared sticky folder, and changes nothing of it`,
      async () => {
        const user = asOther as { uid: number; gid: number };
        const shared = temp("mcp-bridge-shared-");
        chmodSync(shared, 0o1777);
        // The attacker prepares mcp-bridge/notes where the victim's cache folder will be, holding a note.
        const attacker = [`--reuid=${user.uid}`, `--regid=${user.gid}`, "--clear-groups", "--"];
        const script =
          plant === "folder"
            ? `mkdir -m 0777 -p "${shared}/mcp-bridge/notes"`
            : `mkdir -m 0777 -p "${shared}/elsewhere/notes" && ln -s "${shared}/elsewhere" "${shared}/mcp-bridge"`;
        const planted = spawnSync("setpriv", [...attacker, "sh", "-c", script], { encoding: "utf8" });
        expect(planted.status, planted.stderr).toBe(0);
        const notesDir = plant === "folder" ? `${shared}/mcp-bridge/notes` : `${shared}/elsewhere/notes`;
        const note = JSON.stringify([{ id: "planted", title: "Planted", body: "b", createdAt: "" }]);
        const write = spawnSync("setpriv", [...attacker, "sh", "-c", `cat > "${notesDir}/notes.json"`], {
          input: note,
        });
        expect(write.status).toBe(0);

        await using victim = await notes({ HOME: homeOf(), XDG_CACHE_HOME: shared });
        const list = await victim.call("list");
        expect(list.isError).toBe(true);
        expect(list.text).toContain("Refusing to keep notes in");
        expect(list.text).not.toContain("Planted");
        expect((await victim.call("create", { title: "Victim's", body: "v" })).isError).toBe(true);
        expect(readFileSync(join(notesDir, "notes.json"), "utf8")).toBe(note);
        expect(statSync(notesDir).mode & 0o777).toBe(0o777);
        expect(statSync(notesDir).uid).toBe(user.uid);
      },
    );
  }
});
