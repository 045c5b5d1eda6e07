import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Bridge } from "../../src/bridge/api.js";
import { startBridge } from "../../src/bridge/bridge.js";
import { executeCode } from "../../src/codemode/execute-code.js";
import { CodeLimitError, ErrorCode, McpBridgeError } from "../../src/errors/index.js";
import { inProcessEntry } from "../helpers/in-process.js";

/**
 * Each case is an attack on the sandbox. A `node:vm`-like sandbox fails them: there the guest's
 * functions (and any host function given to it) lead back to the host's `Function`, `process` and
 * prototypes. In QuickJS-in-WebAssembly the guest has its own heap and built-ins; nothing of the host
 * is reachable, and every limit ends in a typed error.
 */

let bridge: Bridge;
beforeAll(async () => {
  bridge = await startBridge({
    servers: { calc: inProcessEntry("normal"), slow: inProcessEntry("slow-tool") },
    catalogCache: false,
  });
}, 30_000);
afterAll(() => bridge?.close());

function callsOf(server: string, tool: string): number {
  const name = bridge.tools({ server }).find((t) => t.tool === tool)?.name ?? "";
  return bridge.stats().tools[name]?.calls ?? 0;
}

async function failure(
  code: string,
  options: Parameters<typeof executeCode>[2] = {},
): Promise<McpBridgeError> {
  const error = await executeCode(bridge, code, options).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(McpBridgeError);
  return error as McpBridgeError;
}

describe("the sandbox has nothing of the host", () => {
  it("has no process, require, module loader, fetch, timers, filesystem or environment", async () => {
    const run = await executeCode(
      bridge,
      `return ["process", "require", "module", "Buffer", "fetch", "XMLHttpRequest", "WebSocket", "setTimeout",
        "setInterval", "setImmediate", "queueMicrotask", "std", "os", "Deno", "Bun", "global"]
        .filter((name) => typeof globalThis[name] !== "undefined" || name in globalThis);`,
    );
    expect(run.value).toEqual([]);
  });

  it("cannot reach the host through constructor.constructor of anything it was given", async () => {
    // In node:vm, console.log (a host function) leads to the host's Function and so to `process`.
    const run = await executeCode(
      bridge,
      `const reach = (f) => { try { return typeof f.constructor.constructor("return this")().process; } catch (e) { return "threw"; } };
       return [reach(console.log), reach(tools.calc.add), reach(tools), reach({}), reach(tools.calc.add({ a: 1, b: 2 }))];`,
    );
    // "threw": the object has no constructor to follow (tools is a null-prototype object); either way no process.
    const reached = run.value as string[];
    expect(reached.every((r) => r === "undefined" || r === "threw")).toBe(true);
    expect(reached[0]).toBe("undefined");
  });

  it("eval and Function run inside the sandbox only", async () => {
    const run = await executeCode(
      bridge,
      `return [eval("typeof process"), new Function("return typeof require")(), (0, eval)("typeof globalThis.fetch"),
        Function("return Object.keys(globalThis).sort().join(',')")()];`,
    );
    const [a, b, c, globals] = run.value as string[];
    expect([a, b, c]).toEqual(["undefined", "undefined", "undefined"]);
    expect(globals).toBe("console,tools");
  });

  it("refuses import() and require with a clear error", async () => {
    const imported = await failure(
      `const fs = await import("node:fs"); return fs.readFileSync("/etc/passwd", "utf8");`,
    );
    expect(imported.code).toBe(ErrorCode.CodeFailed);
    expect(imported.message).toMatch(/program threw/i);
    const required = await failure(`return require("child_process").execSync("id").toString();`);
    expect(required.message).toMatch(/ReferenceError: .*require/);
  });

  it("prototype pollution stays in the sandbox, in both directions", async () => {
    const before = Object.getOwnPropertyNames(Object.prototype).sort();
    const run = await executeCode(
      bridge,
      `Object.prototype.polluted = "yes";
       Array.prototype.push = () => 0;
       const args = JSON.parse('{"text": "hi", "__proto__": {"polluted": "from-args"}, "constructor": {"prototype": {"polluted": "c"}}}');
       const echoed = await tools.calc.echo(args);
       const result = JSON.parse('{"__proto__": {"isAdmin": true}}');
       return { text: echoed.text, result };`,
    );
    expect(run.value).toMatchObject({ text: "hi" });
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(before);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
    expect([1].push(2)).toBe(2);
    // The next execution is a fresh context: nothing of the last one's globals or prototypes.
    const next = await executeCode(bridge, `return [({}).polluted, typeof globalThis.leftover, [].push(1)];`);
    expect(next.value).toEqual([null, "undefined", 1]);
  });

  it("keeps one execution's globals from another running at the same time", async () => {
    const [a, b] = await Promise.all([
      executeCode(
        bridge,
        `globalThis.shared = "a"; await tools.slow.sleep({ ms: 200 }); return globalThis.shared;`,
      ),
      executeCode(
        bridge,
        `globalThis.shared = "b"; await tools.slow.sleep({ ms: 50 }); return globalThis.shared;`,
      ),
    ]);
    expect([a.value, b.value]).toEqual(["a", "b"]);
  });
});

describe("arguments cross as JSON only", () => {
  it("refuses a cyclic object, a throwing getter and a hostile proxy before any call is made", async () => {
    const before = callsOf("calc", "echo");
    for (const program of [
      `const a = { text: "x" }; a.self = a; await tools.calc.echo(a);`,
      `await tools.calc.echo({ get text() { throw new Error("getter ran"); } });`,
      `await tools.calc.echo(new Proxy({}, { ownKeys() { throw new Error("trap"); } }));`,
      `await tools.calc.echo("not an object");`,
      `await tools.calc.echo([1, 2]);`,
    ]) {
      const error = await failure(program);
      expect(error.code, program).toBe(ErrorCode.CodeFailed);
      expect(error.message, program).toMatch(/plain JSON object|getter ran|trap/);
    }
    expect(callsOf("calc", "echo")).toBe(before);
  });

  it("a getter that returns a value is read in the sandbox, and only its JSON reaches the tool", async () => {
    const run = await executeCode(
      bridge,
      `return (await tools.calc.echo({ get text() { return "from getter"; } })).text;`,
    );
    expect(run.value).toBe("from getter");
  });
});

describe("each limit ends the program with a clear error", () => {
  it("an infinite loop: CPU time", async () => {
    const error = await failure(`for (;;) {}`, { cpuMs: 300 });
    expect(error).toBeInstanceOf(CodeLimitError);
    expect((error as CodeLimitError).limit).toBe("cpu");
    expect(error.message).toMatch(/CPU time limit \(300 ms of CPU\)/);
  });

  it("an endless chain of promises: CPU time", async () => {
    const error = await failure(`const spin = async () => { await null; return spin(); }; await spin();`, {
      cpuMs: 300,
    });
    expect((error as CodeLimitError).limit).toBe("cpu");
  });

  it("a memory bomb: memory", async () => {
    const error = await failure(`const keep = []; for (let i = 0; ; i++) keep.push({ i, s: "item " + i });`, {
      memoryBytes: 32 * 1024 * 1024,
      // Only memory may stop it (a loaded machine must not make the CPU limit come first).
      cpuMs: 25_000,
      timeoutMs: 25_000,
    });
    expect((error as CodeLimitError).limit).toBe("memory");
    expect(error.message).toMatch(/memory limit \(32 MiB\)/);
  });

  it("a memory bomb stuck inside a native built-in never blocks the host, and ends at its limit", async () => {
    // QuickJS's String.prototype.repeat retries its allocation past the memory limit without reaching
    // an interrupt check (for a long time before the WebAssembly memory had its maximum); the program
    // runs in a worker, so the host's timers keep firing. No bound on how many: only that they fire.
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 5);
    try {
      const error = await failure(`const keep = []; for (;;) keep.push("x".repeat(1 << 20));`, {
        memoryBytes: 16 * 1024 * 1024,
        timeoutMs: 3000,
      });
      expect(error).toBeInstanceOf(CodeLimitError);
      expect(["memory", "wallTime"]).toContain((error as CodeLimitError).limit);
    } finally {
      clearInterval(ticker);
    }
    expect(ticks).toBeGreaterThan(0);
  });

  it("a 100 MB console.log: memory or output, never 100 MB on the host", async () => {
    const error = await failure(`console.log("x".repeat(100 * 1024 * 1024));`);
    expect(error).toBeInstanceOf(CodeLimitError);
    expect(["memory", "output"]).toContain((error as CodeLimitError).limit);
    // With room for the string in the sandbox, the output limit stops it before it crosses.
    const roomy = await failure(`console.log("x".repeat(100 * 1024 * 1024));`, {
      memoryBytes: 512 * 1024 * 1024,
    });
    expect((roomy as CodeLimitError).limit).toBe("output");
  });

  it("printing forever: output", async () => {
    const error = await failure(`for (;;) console.log("line ".repeat(100));`, { maxOutputChars: 10_000 });
    expect((error as CodeLimitError).limit).toBe("output");
  });

  it("10,000 tool calls: the calls past the limit never reach the server", async () => {
    const before = callsOf("calc", "add");
    const error = await failure(`for (let i = 0; i < 10000; i++) await tools.calc.add({ a: i, b: 1 });`, {
      maxToolCalls: 20,
    });
    expect((error as CodeLimitError).limit).toBe("toolCalls");
    expect(callsOf("calc", "add") - before).toBeLessThanOrEqual(20);
    const parallel = await failure(
      `await Promise.all(Array.from({ length: 10000 }, (_, i) => tools.calc.add({ a: i, b: 1 })));`,
      { maxToolCalls: 20 },
    );
    expect((parallel as CodeLimitError).limit).toBe("toolCalls");
    expect(callsOf("calc", "add") - before).toBeLessThanOrEqual(40);
  });

  it("bounds the tool calls running at once", async () => {
    await executeCode(
      bridge,
      `await Promise.all(Array.from({ length: 8 }, () => tools.slow.sleep({ ms: 100 })));`,
      { maxConcurrentCalls: 2 },
    );
    const run = await executeCode(bridge, `return (await tools.slow.max_active()).text;`);
    expect(Number(run.value)).toBeLessThanOrEqual(2);
  });

  it("a program that never resolves: wall time", async () => {
    const error = await failure(`await new Promise(() => {});`, { timeoutMs: 500 });
    expect((error as CodeLimitError).limit).toBe("wallTime");
  });

  it("a catch around everything does not keep a stopped program alive", async () => {
    const error = await failure(`for (;;) { try { for (;;) {} } catch (e) {} }`, { cpuMs: 300 });
    expect((error as CodeLimitError).limit).toBe("cpu");
  });

  it("a caller's cancellation: ABORTED, and the running tool call is cancelled upstream", async () => {
    // A server of its own: its max_active is 0 until this program's sleep is running on it.
    await using own = await startBridge({
      servers: { slow: inProcessEntry("slow-tool") },
      catalogCache: false,
    });
    const name = (tool: string) => own.tools().find((t) => t.tool === tool)?.name ?? "";
    const count = async (tool: string) => Number((await own.call(name(tool))).text);
    const controller = new AbortController();
    const running = executeCode(own, `await tools.slow.sleep({ ms: 20000 }); return "finished";`, {
      signal: controller.signal,
    }).then(
      () => undefined,
      (e: unknown) => e,
    );
    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline && (await count("max_active")) < 1)
      await new Promise((r) => setTimeout(r, 50));
    controller.abort();
    const error = (await running) as McpBridgeError;
    expect(error).toBeInstanceOf(McpBridgeError);
    expect(error.code).toBe(ErrorCode.Aborted);
    let cancelled = await count("cancelled");
    while (Date.now() < deadline && cancelled < 1) {
      await new Promise((r) => setTimeout(r, 50));
      cancelled = await count("cancelled");
    }
    expect(cancelled).toBe(1);
  });

  it("deep recursion is the program's own error, not a crash", async () => {
    const error = await failure(`const f = (n) => f(n + 1) + 1; return f(0);`);
    expect(error.code).toBe(ErrorCode.CodeFailed);
    expect(error.message).toMatch(/stack|recursion/i);
  });
});
