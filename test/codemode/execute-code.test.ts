import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Bridge } from "../../src/bridge/api.js";
import { startBridge } from "../../src/bridge/bridge.js";
import { executeCode } from "../../src/codemode/execute-code.js";
import { CodeLimitError } from "../../src/errors/index.js";
import { inProcessEntry } from "../helpers/in-process.js";

let bridge: Bridge;
beforeAll(async () => {
  bridge = await startBridge({
    servers: {
      calc: inProcessEntry("normal"),
      "big-results": inProcessEntry("big-results"),
      huge: inProcessEntry("huge-structured"),
    },
    catalogCache: false,
  });
}, 30_000);
afterAll(() => bridge?.close());

describe("executeCode with real servers", () => {
  it("calls tools through the bridge and returns what the program prints and returns", async () => {
    const add = bridge.tools({ server: "calc" }).find((t) => t.tool === "add")?.name ?? "";
    const before = bridge.stats().tools[add]?.calls ?? 0;
    const run = await executeCode(
      bridge,
      `const sum = await tools.calc.add({ a: 2, b: 3 });
       console.log("sum", sum.text);
       const { quotient } = await tools.calc.divide({ a: 9, b: 3 });
       return { quotient, isError: sum.isError };`,
    );
    expect(run.output).toBe("sum 5");
    expect(run.value).toEqual({ quotient: 3, isError: false });
    expect(run.toolCalls).toBe(2);
    // The same path as a direct call: the bridge's own statistics counted it.
    expect(bridge.stats().tools[add]?.calls).toBe(before + 1);
  });

  it("maps server names to identifiers and runs calls in parallel", async () => {
    const run = await executeCode(
      bridge,
      `const all = await Promise.all([1, 2, 3, 4, 5, 6].map((n) => tools.calc.add({ a: n, b: n })));
       return all.map((r) => Number(r.text));`,
      { maxConcurrentCalls: 2 },
    );
    expect(run.value).toEqual([2, 4, 6, 8, 10, 12]);
  });

  it("reads a large result inside the sandbox: only the count comes back", async () => {
    const run = await executeCode(
      bridge,
      `const r = await tools.big_results.big({ mb: 1 }); return r.text.length;`,
    );
    expect(run.value).toBe(1024 * 1024);
  });

  it("cuts a result's text at 1 MiB, as the docs say, and refuses a larger answer outside its text", async () => {
    const run = await executeCode(
      bridge,
      `const r = await tools.big_results.big({ mb: 3 });
       return { chars: r.text.length, cut: r.text.includes("truncated"), same: r.content.length === 1 && r.content[0].text === r.text };`,
    );
    expect(run.value).toEqual({ chars: expect.any(Number), cut: true, same: true });
    expect((run.value as { chars: number }).chars).toBeLessThanOrEqual(1024 * 1024);
    const refused = await executeCode(
      bridge,
      `try { await tools.huge.numbers({ count: 600000 }); return "received"; } catch (e) { return e.message; }`,
    );
    expect(String(refused.value)).toMatch(/RESULT_TOO_LARGE|more than a program receives/);
  });

  it("turns a failed tool call into an exception the program can catch", async () => {
    const run = await executeCode(
      bridge,
      `try { await tools.calc.add({ a: "x" }); } catch (e) { return e.name + ": " + e.message; }`,
    );
    expect(String(run.value)).toMatch(/INVALID_ARGUMENTS|Error: /);
  });

  it("accepts TypeScript annotations when a stripper is available", async () => {
    const run = await executeCode(
      bridge,
      `const n: number = 2; const f = (x: number): number => x * n; return f(21);`,
    );
    expect(run.value).toBe(42);
  }, 90_000);

  it("says which limit stopped a program", async () => {
    const error = await executeCode(bridge, `while (true) {}`, { cpuMs: 200 }).catch((e) => e);
    expect(error).toBeInstanceOf(CodeLimitError);
    expect(error.limit).toBe("cpu");
  });
});
