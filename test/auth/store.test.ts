import {
  chmodSync,
  chownSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AuthStore } from "../../src/auth/store.js";

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "mcp-bridge-auth-"));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const modeOf = (path: string) => statSync(path).mode & 0o777;

describe.skipIf(process.platform === "win32")("OAuth token store permissions", () => {
  it("creates the auth folder 0700 and the token file 0600", () => {
    const dir = join(root, "auth");
    const store = new AuthStore(dir, "remote", "https://example.test/mcp");
    store.update(() => ({ tokens: { access_token: "at-1" } }));
    expect(modeOf(dir)).toBe(0o700);
    expect(modeOf(store.file)).toBe(0o600);
    expect(store.read().tokens).toEqual({ access_token: "at-1" });
  });

  it("refuses a pre-existing world-writable auth folder without changing its mode (UNSAFE_PATH)", () => {
    const dir = join(root, "auth");
    mkdirSync(dir);
    chmodSync(dir, 0o777);
    const store = new AuthStore(dir, "remote", "https://example.test/mcp");
    expect(() => store.update(() => ({ tokens: { access_token: "at-1" } }))).toThrow(
      expect.objectContaining({ code: "UNSAFE_PATH" }),
    );
    expect(modeOf(dir)).toBe(0o777);
  });

  it("reading tightens a loose token file of ours but leaves the folder's mode to its owner", () => {
    const dir = join(root, "auth");
    mkdirSync(dir);
    chmodSync(dir, 0o755);
    const store = new AuthStore(dir, "remote", "https://example.test/mcp");
    writeFileSync(store.file, JSON.stringify({ tokens: { access_token: "at" } }), { mode: 0o644 });
    expect(store.read().tokens).toEqual({ access_token: "at" });
    expect(modeOf(dir)).toBe(0o755);
    expect(modeOf(store.file)).toBe(0o600);
  });

  it("refuses a token file that is a symbolic link: never reads nor writes through it", () => {
    const dir = join(root, "auth");
    mkdirSync(dir, { mode: 0o700 });
    const target = join(root, "elsewhere.json");
    const original = JSON.stringify({ tokens: { access_token: "planted" } });
    writeFileSync(target, original, { mode: 0o644 });
    const store = new AuthStore(dir, "remote", "https://example.test/mcp");
    symlinkSync(target, store.file);
    expect(store.read()).toEqual({});
    expect(() => store.update(() => ({ tokens: { access_token: "real-token" } }))).toThrow(
      /symbolic link.*Delete it/,
    );
    expect(readFileSync(target, "utf8")).toBe(original);
    expect(modeOf(target)).toBe(0o644);
  });

  it.skipIf(process.getuid?.() !== 0)("a token file owned by another user (planted) is not believed", () => {
    const dir = join(root, "auth");
    mkdirSync(dir, { mode: 0o700 });
    const store = new AuthStore(dir, "remote", "https://example.test/mcp");
    store.update(() => ({ tokens: { access_token: "planted" } }));
    chownSync(store.file, 65534, 65534);
    expect(store.read()).toEqual({});
  });
});
