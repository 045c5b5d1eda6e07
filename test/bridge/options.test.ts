import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { resolveBridgeOptions } from "../../src/bridge/options.js";
import { planReload } from "../../src/bridge/reload.js";
import { DEFAULT_BRIDGE_OPTIONS, DEFAULT_RESTART_POLICY } from "../../src/config/defaults.js";
import type { ServerDefinition } from "../../src/config/model.js";
import { packageInfo } from "../../src/util/package-info.js";
import { SerialQueue } from "../../src/util/serial-queue.js";

describe("resolveBridgeOptions", () => {
  it("fills every default once, at the edge", () => {
    const resolved = resolveBridgeOptions({});
    expect(resolved.wait).toBe(DEFAULT_BRIDGE_OPTIONS.wait);
    expect(resolved.onError).toBe("throw");
    expect(resolved.validateArguments).toBe(false);
    expect(resolved.enforceRequired).toBe(true);
    expect(resolved.only).toBeUndefined();
    expect(resolved.reservedToolNames).toEqual([]);
    expect(resolved.env).toBe(process.env);
    expect(resolved.auth.env).toBe(process.env);
    expect(resolved.load.env).toBe(process.env);
  });

  it("keeps what the host gave", () => {
    const env = { HOME: "/nowhere" };
    const resolved = resolveBridgeOptions({
      env,
      wait: false,
      only: ["a"],
      onError: "result",
      clientInfo: { name: "host", version: "9" },
      config: "x.json",
    });
    expect(resolved.wait).toBe(false);
    expect(resolved.only?.has("a")).toBe(true);
    expect(resolved.onError).toBe("result");
    expect(resolved.clientInfo).toEqual({ name: "host", version: "9" });
    expect(resolved.load).toMatchObject({ path: "x.json", env });
    expect(resolved.auth.env).toBe(env);
  });

  it("sends this package's name and version as clientInfo by default", () => {
    const pkg = JSON.parse(readFileSync("package.json", "utf8")) as { name: string; version: string };
    expect(packageInfo()).toEqual({ name: pkg.name, version: pkg.version });
    expect(resolveBridgeOptions({}).clientInfo).toEqual({ name: pkg.name, version: pkg.version });
  });
});

function server(name: string, extra: Partial<ServerDefinition> = {}): ServerDefinition {
  return {
    name,
    transport: "stdio",
    command: "node",
    args: [],
    env: {},
    inheritEnv: false,
    enabled: true,
    required: false,
    startupTimeoutMs: 1000,
    callTimeoutMs: 1000,
    tools: { include: [], exclude: [] },
    lazy: false,
    restart: DEFAULT_RESTART_POLICY,
    healthCheckIntervalMs: 0,
    negotiation: "legacy",
    ...extra,
  } as ServerDefinition;
}

describe("planReload", () => {
  it("re-filters a server whose only change is its tool filter, restarts any other change", () => {
    const before = [server("same"), server("filter"), server("args"), server("gone")];
    const after = [
      server("same"),
      server("filter", { tools: { include: ["x"], exclude: [] } }),
      server("args", { args: ["--verbose"] } as Partial<ServerDefinition>),
      server("new"),
    ];
    const plan = planReload(before, after);
    const names = (list: readonly ServerDefinition[]) => list.map((d) => d.name);
    expect(names(plan.unchanged)).toEqual(["same"]);
    expect(names(plan.refiltered)).toEqual(["filter"]);
    expect(names(plan.restarted)).toEqual(["args"]);
    expect(names(plan.added)).toEqual(["new"]);
    expect(names(plan.removed)).toEqual(["gone"]);
  });

  it("keeps the process of a server whose only change is its tags or retryCrashedCalls", () => {
    const plan = planReload(
      [server("tagged"), server("retry")],
      [server("tagged", { tags: ["team-x"] }), server("retry", { retryCrashedCalls: true })],
    );
    expect(plan.restarted).toEqual([]);
    expect(plan.refiltered.map((d) => d.name)).toEqual(["tagged", "retry"]);
  });

  it("restarts a server whose filter and command both changed", () => {
    const plan = planReload(
      [server("a")],
      [server("a", { command: "deno", tools: { include: ["x"], exclude: [] } } as Partial<ServerDefinition>)],
    );
    expect(plan.restarted.map((d) => d.name)).toEqual(["a"]);
    expect(plan.refiltered).toEqual([]);
  });
});

describe("SerialQueue", () => {
  it("runs tasks one at a time, in order, and a failure does not stop the next", async () => {
    const queue = new SerialQueue();
    const log: string[] = [];
    let running = 0;
    const task =
      (name: string, fail = false) =>
      async () => {
        running++;
        expect(running).toBe(1);
        log.push(`start ${name}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
        log.push(`end ${name}`);
        running--;
        if (fail) throw new Error(name);
        return name;
      };
    const results = await Promise.allSettled([
      queue.run(task("a")),
      queue.run(task("b", true)),
      queue.run(task("c")),
    ]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(log).toEqual(["start a", "end a", "start b", "end b", "start c", "end c"]);
  });

  it("settled() is false with nothing queued, and gives up after its bound", async () => {
    const queue = new SerialQueue();
    expect(await queue.settled(10)).toBe(false);
    let release: () => void = () => {};
    const blocked = queue.run(() => new Promise<void>((resolve) => (release = resolve)));
    expect(await queue.settled(20)).toBe(true);
    const aborted = new AbortController();
    aborted.abort();
    expect(await queue.settled(60_000, aborted.signal)).toBe(true);
    release();
    await blocked;
    expect(await queue.settled(10)).toBe(false);
  });
});
