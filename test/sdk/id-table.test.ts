import { Client } from "@modelcontextprotocol/client";
import { Server } from "@modelcontextprotocol/server";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PROTOCOL_REQUEST_TABLES, useIdTables } from "../../src/sdk/protocol-tables.js";
import { IdTable } from "../../src/util/id-table.js";

type Key = number | string;
type Op =
  | { kind: "next"; gap: number; value: number | undefined }
  | { kind: "set"; key: Key; value: number | undefined }
  | { kind: "setExisting"; pick: number; value: number }
  | { kind: "delete"; key: Key }
  | { kind: "deleteExisting"; pick: number }
  | { kind: "get"; key: Key }
  | { kind: "getExisting"; pick: number }
  | { kind: "has"; key: Key }
  | { kind: "clear" }
  | { kind: "iterate" };

/** Keys of every kind a Map tells apart, including ones the hash table must refuse. */
const anyKey: fc.Arbitrary<Key> = fc.oneof(
  fc.nat(40),
  fc.integer({ min: 4294967290, max: 4294967296 }),
  fc.constantFrom(-0, -1, 0.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53),
  fc.constantFrom("0", "1", "x", "__proto__"),
);

const value = fc.oneof(
  { weight: 9, arbitrary: fc.integer() },
  { weight: 1, arbitrary: fc.constant(undefined) },
);

/** What a request table sees: increasing ids with defined values, lookups and deletions of live ones. */
const requestOps: fc.WeightedArbitrary<Op>[] = [
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant("next" as const),
      gap: fc.oneof(fc.constant(1), fc.integer({ min: 1, max: 40 })),
      value: fc.integer(),
    }),
  },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant("deleteExisting" as const), pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("getExisting" as const), pick: fc.nat() }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant("setExisting" as const), pick: fc.nat(), value: fc.integer() }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: "iterate" as const }) },
];

/** Anything else a Map may be asked, which the table must answer alike (mostly by becoming one). */
const otherOps: fc.WeightedArbitrary<Op>[] = [
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("next" as const), gap: fc.constant(1), value }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("set" as const), key: anyKey, value }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("delete" as const), key: anyKey }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("get" as const), key: anyKey }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("has" as const), key: anyKey }) },
  { weight: 1, arbitrary: fc.constant({ kind: "clear" as const }) },
];

const ops: fc.Arbitrary<Op[]> = fc.oneof(
  fc.array(fc.oneof(...requestOps), { maxLength: 300 }),
  fc.array(fc.oneof(...requestOps, ...otherOps), { maxLength: 300 }),
);

/** Runs the same operations on an IdTable and a Map; every answer and the final contents must match. */
function replay(ops: readonly Op[], stride: number): void {
  const table = new IdTable<Key, number | undefined>();
  const map = new Map<Key, number | undefined>();
  let next = 0;
  const existing = (pick: number): Key | undefined => {
    const keys = [...map.keys()];
    return keys.length === 0 ? undefined : keys[pick % keys.length];
  };
  for (const step of ops) {
    switch (step.kind) {
      case "next": {
        // How the SDK numbers requests: ever larger ids, here with gaps and a stride so that their
        // slots collide in every pattern.
        const key = next;
        next += step.gap * stride;
        expect(table.set(key, step.value)).toBe(table);
        map.set(key, step.value);
        break;
      }
      case "set":
        table.set(step.key, step.value);
        map.set(step.key, step.value);
        break;
      case "setExisting": {
        const key = existing(step.pick);
        if (key === undefined) break;
        table.set(key, step.value);
        map.set(key, step.value);
        break;
      }
      case "delete":
        expect(table.delete(step.key)).toBe(map.delete(step.key));
        break;
      case "deleteExisting": {
        const key = existing(step.pick);
        if (key !== undefined) expect(table.delete(key)).toBe(map.delete(key));
        break;
      }
      case "get":
        expect(table.get(step.key)).toBe(map.get(step.key));
        break;
      case "getExisting": {
        const key = existing(step.pick);
        if (key !== undefined) expect(table.get(key)).toBe(map.get(key));
        break;
      }
      case "has":
        expect(table.has(step.key)).toBe(map.has(step.key));
        break;
      case "clear":
        table.clear();
        map.clear();
        break;
      case "iterate":
        expect([...table]).toEqual([...map]);
        break;
    }
    expect(table.size).toBe(map.size);
  }
  expect([...table.entries()]).toEqual([...map.entries()]);
  expect([...table.keys()]).toEqual([...map.keys()]);
  expect([...table.values()]).toEqual([...map.values()]);
  const seen: [Key, number | undefined][] = [];
  table.forEach((v, k, owner) => {
    expect(owner).toBe(table);
    seen.push([k, v]);
  });
  expect(seen).toEqual([...map]);
  for (const [key] of map) expect(table.get(key)).toBe(map.get(key));
}

describe("IdTable", () => {
  it("answers every sequence of operations as a Map does (property)", () => {
    fc.assert(
      fc.property(ops, fc.constantFrom(1, 3, 16, 1024, 2 ** 31 - 1), (sequence, stride) => {
        replay(sequence, stride);
      }),
      { numRuns: 1000 },
    );
  });

  it("finds every entry of a long probe run after deletions in its middle", () => {
    // Keys 0, 16, 32, ... share one home slot in a table of 16: deleting one must shift the rest back.
    const table = new IdTable<number, string>();
    const live = new Set<number>();
    for (let i = 0; i < 7; i++) {
      table.set(i * 16, `v${i}`);
      live.add(i * 16);
    }
    for (const gone of [32, 0, 96]) {
      expect(table.delete(gone)).toBe(true);
      live.delete(gone);
      for (let i = 0; i < 7; i++) expect(table.get(i * 16)).toBe(live.has(i * 16) ? `v${i}` : undefined);
    }
    expect([...table.keys()]).toEqual([16, 48, 64, 80]);
  });

  it("keeps a table with few live requests small while ids grow without bound", () => {
    const table = new IdTable<number, number>();
    // One request stays pending while a million others come and go.
    table.set(0, 0);
    for (let id = 1; id < 1_000_000; id++) {
      table.set(id, id);
      table.delete(id);
    }
    expect(table.size).toBe(1);
    expect(table.get(0)).toBe(0);
    expect([...table]).toEqual([[0, 0]]);
  });

  it("keeps -0 as 0, as a Map does", () => {
    const table = new IdTable<number, string>();
    table.set(-0, "zero");
    expect(Object.is([...table.keys()][0], 0)).toBe(true);
    expect(table.get(0)).toBe("zero");
  });

  it("serves on after a burst of requests has grown and emptied it", () => {
    const table = new IdTable<number, number>();
    for (let id = 0; id < 5000; id++) table.set(id, id);
    for (let id = 0; id < 5000; id++) expect(table.delete(id)).toBe(true);
    expect(table.size).toBe(0);
    table.set(3, 3);
    table.set(6000, 6000);
    expect([...table]).toEqual([
      [3, 3],
      [6000, 6000],
    ]);
  });

  it("skips entries deleted while it is iterated", () => {
    const table = new IdTable<number, string>();
    for (let id = 0; id < 5; id++) table.set(id, String(id));
    const seen: number[] = [];
    for (const [key] of table) {
      seen.push(key);
      table.delete(key + 1);
    }
    expect(seen).toEqual([0, 2, 4]);
  });

  it("replaces the request tables of the SDK's client and server, and nothing else", () => {
    for (const protocol of [
      new Client({ name: "c", version: "1" }),
      new Server({ name: "s", version: "1" }),
    ]) {
      const fields = protocol as unknown as Record<string, unknown>;
      const others = Object.keys(fields).filter(
        (name) => !(PROTOCOL_REQUEST_TABLES as readonly string[]).includes(name),
      );
      const before = others.map((name) => fields[name]);
      useIdTables(protocol);
      // Each name is a Map of this SDK's: if one is renamed, this says that the speed-up is gone.
      for (const name of PROTOCOL_REQUEST_TABLES) expect(fields[name]).toBeInstanceOf(IdTable);
      expect(others.map((name) => fields[name])).toEqual(before);
    }
  });

  it("leaves a table alone that is not an empty Map", () => {
    const owner = { _responseHandlers: new Map([[1, "x"]]), _timeoutInfo: "renamed" };
    useIdTables(owner);
    expect(owner._responseHandlers).toBeInstanceOf(Map);
    expect(owner._timeoutInfo).toBe("renamed");
  });
});
