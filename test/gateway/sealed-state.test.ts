import { chmodSync, chownSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import {
  callHash,
  credentialHash,
  openRound,
  processStateKeys,
  type SealedRound,
  type StateKeys,
  sealRound,
} from "../../src/apps/gateway/identity/sealed-state.js";
import { parseStateKeys, readStateKeys } from "../../src/apps/gateway/identity/state-keys.js";

const RUNS = { numRuns: 200 };
const json = fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<unknown>;
const args = fc.dictionary(fc.string({ maxLength: 8 }), json, { maxKeys: 5 });
const roundArb: fc.Arbitrary<SealedRound["round"]> = fc.oneof(
  fc.record({ kind: fc.constant("parked" as const), id: fc.uuid() }),
  fc.record({
    kind: fc.constant("upstream" as const),
    state: fc.string({ maxLength: 200 }),
    keys: fc.array(fc.string({ maxLength: 10 }), { maxLength: 4 }),
    answered: fc.dictionary(fc.string({ maxLength: 8 }), fc.constant({ action: "decline" })),
  }),
);
const NOW = 1_800_000_000_000;
const TTL = 60_000;
const keys = processStateKeys();

function bound(identity: string, tool: string, a: unknown) {
  return { credential: credentialHash(identity), call: callHash(tool, a) };
}

describe("sealed requestState tokens", () => {
  it("open to exactly what was sealed, for the same credential and call, before expiry", () => {
    fc.assert(
      fc.property(fc.string(), fc.string({ minLength: 1 }), args, roundArb, (who, tool, a, round) => {
        const token = sealRound(keys, bound(who, tool, a), round, TTL, NOW);
        const opened = openRound(keys, token, bound(who, tool, a), NOW + TTL);
        expect(opened.ok).toBe(true);
        if (opened.ok) expect(opened.sealed.round).toEqual(JSON.parse(JSON.stringify(round)));
        // Argument order does not matter: the hash is over a stable form.
        const reordered = Object.fromEntries(Object.entries(a).reverse());
        expect(openRound(keys, token, bound(who, tool, reordered), NOW).ok).toBe(true);
      }),
      RUNS,
    );
  });

  it("refuses any token with one bit flipped anywhere", () => {
    fc.assert(
      fc.property(roundArb, fc.nat(), fc.integer({ min: 0, max: 7 }), (round, at, bit) => {
        const b = bound("alice", "tool", { x: 1 });
        const token = sealRound(keys, b, round, TTL, NOW);
        const [prefix, kid, data] = token.split(".") as [string, string, string];
        const bytes = Buffer.from(data, "base64url");
        const i = at % bytes.length;
        bytes[i] = (bytes[i] as number) ^ (1 << bit);
        const flipped = `${prefix}.${kid}.${bytes.toString("base64url")}`;
        const opened = openRound(keys, flipped, b, NOW);
        expect(opened).toEqual({ ok: false, why: "unreadable" });
        // The text itself mangled (one character changed) is refused too.
        const j = at % token.length;
        const other = token[j] === "A" ? "B" : "A";
        const mangled = token.slice(0, j) + other + token.slice(j + 1);
        expect(openRound(keys, mangled, b, NOW).ok).toBe(false);
      }),
      RUNS,
    );
  });

  it("refuses another credential, another call and an expired clock", () => {
    fc.assert(
      fc.property(
        fc.string(),
        fc.string(),
        fc.string({ minLength: 1 }),
        args,
        args,
        fc.integer({ min: 1, max: 10 * TTL }),
        roundArb,
        (who, thief, tool, a, b, late, round) => {
          fc.pre(who !== thief);
          const token = sealRound(keys, bound(who, tool, a), round, TTL, NOW);
          expect(openRound(keys, token, bound(thief, tool, a), NOW)).toEqual({
            ok: false,
            why: "otherCredential",
          });
          expect(openRound(keys, token, bound(who, `${tool}x`, a), NOW)).toEqual({
            ok: false,
            why: "otherCall",
          });
          if (callHash(tool, a) !== callHash(tool, b)) {
            expect(openRound(keys, token, bound(who, tool, b), NOW).ok).toBe(false);
          }
          expect(openRound(keys, token, bound(who, tool, a), NOW + TTL + late)).toEqual({
            ok: false,
            why: "expired",
          });
        },
      ),
      RUNS,
    );
  });

  it("opens with any key of the file, refuses an unknown key id and a kid re-labelled", () => {
    const a = { kid: "a", key: Buffer.alloc(32, 1) };
    const b = { kid: "b", key: Buffer.alloc(32, 2) };
    const old: StateKeys = { sealing: a, opening: new Map([["a", a.key]]) };
    const rotating: StateKeys = {
      sealing: b,
      opening: new Map([
        ["b", b.key],
        ["a", a.key],
      ]),
    };
    const rotated: StateKeys = { sealing: b, opening: new Map([["b", b.key]]) };
    const x = bound("alice", "t", {});
    const token = sealRound(old, x, { kind: "parked", id: "1" }, TTL, NOW);
    expect(openRound(rotating, token, x, NOW).ok).toBe(true);
    expect(openRound(rotated, token, x, NOW)).toEqual({ ok: false, why: "unknownKey" });
    // The kid is authenticated: a token moved under another kid of the same gateway fails.
    const relabelled = token.replace(".a.", ".b.");
    expect(openRound(rotating, relabelled, x, NOW)).toEqual({ ok: false, why: "unreadable" });
    // Two seals of the same round never look alike.
    expect(sealRound(old, x, { kind: "parked", id: "1" }, TTL, NOW)).not.toBe(token);
    for (const junk of ["", "mcpb1", "mcpb1..", "mcpb1.a.", "mcpb1.a.!!!!", "x.a.AAAA", "mcpb1.a.b.c"]) {
      expect(openRound(rotating, junk, x, NOW).ok).toBe(false);
    }
  });
});

describe("the state keys file", () => {
  const dir = mkdtempSync(join(tmpdir(), "state-keys-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const KEY1 = Buffer.alloc(32, 7).toString("base64");
  const KEY2 = Buffer.alloc(32, 9).toString("base64");

  function keyFile(name: string, text: string, mode = 0o600): string {
    const file = join(dir, name);
    writeFileSync(file, text, { mode });
    chmodSync(file, mode);
    return file;
  }

  it("reads KID:KEY lines: the first seals, all open; comments and blank lines skipped", () => {
    const keys = readStateKeys(keyFile("good", `# rotation in progress\nnew:${KEY2}\n\nold:${KEY1}\n`));
    expect(keys.sealing.kid).toBe("new");
    expect([...keys.opening.keys()]).toEqual(["new", "old"]);
  });

  it("refuses a key file others can read, a link, another user's file, without printing a key", () => {
    const open = keyFile("open", `k:${KEY1}\n`, 0o640);
    expect(() => readStateKeys(open)).toThrow(/Refusing the state keys file .*mode 640.*chmod 600/);
    const world = keyFile("world", `k:${KEY1}\n`, 0o604);
    expect(() => readStateKeys(world)).toThrow(/mode 604/);
    const link = join(dir, "link");
    symlinkSync(keyFile("target", `k:${KEY1}\n`), link);
    expect(() => readStateKeys(link)).toThrow(/symbolic link/);
    if (process.getuid?.() === 0) {
      const planted = keyFile("planted", `k:${KEY1}\n`);
      chownSync(planted, 65534, 65534);
      expect(() => readStateKeys(planted)).toThrow(/owned by uid 65534/);
    } else {
      console.log("skipped: chown to another user needs root");
    }
    for (const bad of [
      `k:${KEY1.slice(4)}`,
      `k ${KEY1}`,
      `k.x:${KEY1}`,
      `k:${KEY1}\nk:${KEY2}`,
      "# none\n",
    ]) {
      let message = "";
      try {
        parseStateKeys("keys.txt", bad);
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toMatch(/state keys file keys\.txt/);
      expect(message).not.toContain(KEY1.slice(4, 20));
    }
  });
});
