import { randomBytes } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { SessionRecord } from "../../src/apps/gateway/cluster/cluster-store.js";
import { openSessionRecord, sealSessionRecord } from "../../src/apps/gateway/cluster/session-record.js";

/**
 * A session record says where a client's requests (and its credential) are forwarded: only a record
 * a replica wrote, for that session, is believed.
 */

const secret = randomBytes(32);
const record: SessionRecord = {
  owner: "replica-a",
  ownerUrl: "http://10.0.0.7:8080/mcp",
  identityHash: "a".repeat(64),
  init: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" } },
  logLevel: "info",
  subscriptions: ["file:///a"],
};

const records = fc.record({
  owner: fc.string({ minLength: 1, maxLength: 40 }),
  ownerUrl: fc.constantFrom("http://127.0.0.1:1/mcp", "https://pod.example:8443/mcp"),
  identityHash: fc.stringMatching(/^[0-9a-f]{64}$/),
  init: fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 })),
  logLevel: fc.option(fc.constantFrom("debug", "info", "error"), { nil: undefined }),
  subscriptions: fc.array(fc.string({ minLength: 1, maxLength: 20 }), { maxLength: 5 }),
});

describe("session records in the cluster store", () => {
  it("read back exactly as written, under the secret that sealed them (property)", () => {
    fc.assert(
      fc.property(records, fc.string({ minLength: 1, maxLength: 40 }), (written, id) => {
        const read = openSessionRecord(id, sealSessionRecord(id, written, secret), secret);
        // JSON drops undefined fields, and `init` may hold values JSON writes differently (-0).
        expect(read).toEqual(JSON.parse(JSON.stringify(written)));
      }),
      { numRuns: 200 },
    );
  });

  it("any one character changed, another session's id, another secret or none: no record (property)", () => {
    fc.assert(
      fc.property(records, fc.nat(), fc.integer({ min: 1, max: 0xffff }), (written, at, shift) => {
        const text = sealSessionRecord("s1", written, secret);
        const index = at % text.length;
        const changed = String.fromCharCode((text.charCodeAt(index) + shift) % 0x10000);
        const tampered = text.slice(0, index) + changed + text.slice(index + 1);
        if (tampered === text) return;
        expect(openSessionRecord("s1", tampered, secret)).toBeUndefined();
        expect(openSessionRecord("s2", text, secret)).toBeUndefined();
        expect(openSessionRecord("s1", text, randomBytes(32))).toBeUndefined();
        expect(openSessionRecord("s1", sealSessionRecord("s1", written, undefined), secret)).toBeUndefined();
      }),
      { numRuns: 200 },
    );
  });

  it("a record pointing a forwarded request (and its credential) somewhere else is refused", () => {
    const text = sealSessionRecord("s1", record, secret);
    const json = text.slice(text.indexOf(".") + 1);
    const redirected = json.replace("10.0.0.7:8080", "attacker.example");
    expect(
      openSessionRecord("s1", `${text.slice(0, text.indexOf("."))}.${redirected}`, secret),
    ).toBeUndefined();
  });

  it("without a secret only the shape is checked: a URL that is not http(s), a bad hash or list is refused", () => {
    const open = (fields: Partial<Record<keyof SessionRecord, unknown>>) =>
      openSessionRecord("s1", `.${JSON.stringify({ ...record, ...fields })}`, undefined);
    expect(open({})).toEqual(record);
    expect(open({ ownerUrl: "file:///etc/passwd" })).toBeUndefined();
    expect(open({ ownerUrl: "not a url" })).toBeUndefined();
    expect(open({ identityHash: "x" })).toBeUndefined();
    expect(open({ subscriptions: "file:///a" })).toBeUndefined();
    expect(open({ subscriptions: [1] })).toBeUndefined();
    expect(open({ init: [] })).toBeUndefined();
    expect(open({ owner: "" })).toBeUndefined();
    expect(open({ logLevel: 3 })).toBeUndefined();
    expect(openSessionRecord("s1", "no dot at all", undefined)).toBeUndefined();
    expect(openSessionRecord("s1", ".{not json", undefined)).toBeUndefined();
  });
});
