import { describe, expect, it } from "vitest";
import {
  SHARED_TOOL_LIST_MAX_BYTES,
  SharedToolListEntries,
  type SharedToolLists,
} from "../../src/bridge/tool-lists/shared-tool-lists.js";
import { toolListKey } from "../../src/bridge/tool-lists/tool-list-files.js";
import { CATALOG_CACHE } from "../../src/config/defaults.js";
import type { ServerDefinition } from "../../src/config/model.js";
import { silentLogger } from "../../src/util/logger.js";

/** A store as a hostile writer (or a damaged one) could leave it: whatever text under the key. */
function storeHolding(text: string | undefined): SharedToolLists & { reads: number[] } {
  const reads: number[] = [];
  return {
    reads,
    get: async (_key, maxBytes) => {
      reads.push(maxBytes);
      return text === undefined ? undefined : text.slice(0, maxBytes);
    },
    set: () => undefined,
  };
}

const definition = {
  name: "srv",
  transport: "stdio",
  command: "node",
  args: ["x.js"],
} as unknown as ServerDefinition;
const key = toolListKey(definition);
const now = Date.now();
const entry = (fields: Record<string, unknown>) =>
  JSON.stringify({
    format: CATALOG_CACHE.format,
    key,
    server: "srv",
    savedAt: now - 1_000,
    expiresAt: now + 60_000,
    tools: [{ name: "t", inputSchema: { type: "object" } }],
    ...fields,
  });

/** A listing as the bridge saves it. */
const parts = {
  toolsJson: JSON.stringify([{ name: "t", inputSchema: { type: "object" } }]),
  capabilitiesJson: "null",
  about: {},
  savedAt: now - 1_000,
  expiresAt: now + 60_000,
};

/** A store that keeps what is written, as Redis would. */
function memoryStore(keySecret?: Uint8Array): SharedToolLists & { entries: Map<string, string> } {
  const entries = new Map<string, string>();
  return {
    entries,
    keySecret,
    get: async (name, maxBytes) => entries.get(name)?.slice(0, maxBytes),
    set: (name, text) => {
      entries.set(name, text);
    },
  };
}

describe("shared catalog entries are checked, never trusted", () => {
  it("reads back a well-formed entry of the same definition", async () => {
    const read = await new SharedToolListEntries(storeHolding(entry({})), silentLogger).read(
      definition,
      3_600_000,
    );
    expect(read?.tools.map((tool) => tool.name)).toEqual(["t"]);
  });

  it.each([
    ["not JSON", "{not json"],
    ["JSON but not an object", "[1,2,3]"],
    ["another definition's entry", entry({ key: "0".repeat(64) })],
    ["another format", entry({ format: 999 })],
    ["tools that are not objects", entry({ tools: ["a", 1, null] })],
    ["tools not a list", entry({ tools: { name: "t" } })],
    ["stale", entry({ expiresAt: now - 1 })],
    ["saved in the future", entry({ savedAt: now + 3_600_000, expiresAt: now + 7_200_000 })],
    ["an expiry no replica gives", entry({ expiresAt: now + 10 * 365 * 86_400_000 })],
    ["too large", entry({ padding: "x".repeat(SHARED_TOOL_LIST_MAX_BYTES) })],
  ])("ignores an entry that is %s", async (_what, text) => {
    const store = storeHolding(text);
    expect(await new SharedToolListEntries(store, silentLogger).read(definition, 3_600_000)).toBeUndefined();
    // Never more than the cap (plus a signature, and one byte to tell "too large") is asked for.
    expect(store.reads.every((bytes) => bytes <= SHARED_TOOL_LIST_MAX_BYTES + 66)).toBe(true);
  });

  it("a store that throws or answers nothing is a cold start", async () => {
    const throwing: SharedToolLists = {
      get: () => Promise.reject(new Error("down")),
      set: () => {
        throw new Error("down");
      },
    };
    const entries = new SharedToolListEntries(throwing, silentLogger);
    expect(await entries.read(definition, 3_600_000)).toBeUndefined();
    expect(() => entries.write(definition, parts)).not.toThrow();
    expect(
      await new SharedToolListEntries(storeHolding(undefined), silentLogger).read(definition, 1),
    ).toBeUndefined();
  });
});

describe("shared catalog entries under a cluster secret", () => {
  it("are named by an HMAC under the secret, never by the definition's plain hash", async () => {
    const secret = new Uint8Array(32).fill(7);
    const store = memoryStore(secret);
    new SharedToolListEntries(store, silentLogger).write(definition, parts);
    const [name, text] = [...store.entries][0] ?? [];
    expect(name).toMatch(/^[0-9a-f]{64}$/);
    expect(name).not.toBe(key);
    // Neither the name nor the text carries the plain hash someone could test guesses against.
    expect(text).not.toContain(key);
    // A replica with the same secret reads it back; one without it, or with another, finds nothing.
    expect((await new SharedToolListEntries(store, silentLogger).read(definition, 3_600_000))?.tools).toEqual(
      [{ name: "t", inputSchema: { type: "object" } }],
    );
    const stranger = { ...store, keySecret: undefined };
    expect(
      await new SharedToolListEntries(stranger, silentLogger).read(definition, 3_600_000),
    ).toBeUndefined();
    const other = { ...store, keySecret: new Uint8Array(32).fill(8) };
    expect(await new SharedToolListEntries(other, silentLogger).read(definition, 3_600_000)).toBeUndefined();
  });

  it("an entry not signed with the secret, or changed after, is not listed", async () => {
    const secret = new Uint8Array(32).fill(7);
    const store = memoryStore(secret);
    new SharedToolListEntries(store, silentLogger).write(definition, parts);
    const [name, signed] = [...store.entries][0] ?? ["", ""];
    const read = () => new SharedToolListEntries(store, silentLogger).read(definition, 3_600_000);
    expect((await read())?.tools).toHaveLength(1);
    // Someone who can write the store but lacks the secret: the same text unsigned, or a tool swapped in.
    const text = signed.slice(signed.indexOf(".") + 1);
    store.entries.set(name, text);
    expect(await read()).toBeUndefined();
    store.entries.set(name, signed.replace('"name":"t"', '"name":"exfiltrate"'));
    expect(await read()).toBeUndefined();
  });

  it("without a secret, entries are named by the definition's hash (the catalog cache files' key)", () => {
    const store = memoryStore();
    new SharedToolListEntries(store, silentLogger).write(definition, parts);
    expect([...store.entries.keys()]).toEqual([key]);
  });
});
