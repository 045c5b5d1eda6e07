import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  GATEWAY_DEFAULTS,
  type GatewayOptions,
  resolveGatewayOptions,
  resolveStdioGatewayOptions,
} from "../../src/apps/gateway/entry/gateway-options.js";
import type { Bridge } from "../../src/bridge/api.js";
import { ErrorCode, McpBridgeError } from "../../src/errors/index.js";
import { silentLogger } from "../../src/util/logger.js";
import { packageInfo } from "../../src/util/package-info.js";

// The resolver never touches the bridge: it is carried through as given.
const bridge = {} as Bridge;

const OPTIONAL = [
  "host",
  "port",
  "tokens",
  "oauth",
  "limits",
  "maxBodyBytes",
  "maxUnreadBytes",
  "drainTimeoutMs",
  "maxSessions",
  "sessionIdleMs",
  "version",
  "forwarder",
  "telemetry",
  "adminTools",
  "adminToken",
  "replicaId",
  "advertiseUrl",
  "clusterSecret",
  "store",
  "insecureStore",
  "logger",
  "fastPath",
  "listWaitMs",
] as const;

/** Resolved options with the replica id (random when not given) set aside. */
const withoutReplicaId = (resolved: ReturnType<typeof resolveGatewayOptions>) => ({
  ...resolved,
  replica: { ...resolved.replica, id: "any" },
});

function refusal(fn: () => unknown): McpBridgeError {
  try {
    fn();
  } catch (error) {
    if (error instanceof McpBridgeError) return error;
    throw error;
  }
  throw new Error("expected a refusal");
}

describe("resolveGatewayOptions", () => {
  it("applies every default from the one table", () => {
    expect(resolveGatewayOptions({ bridge })).toStrictEqual({
      bridge,
      callerAuthDir: undefined,
      host: "127.0.0.1",
      loopback: true,
      port: 0,
      tokens: [],
      oauth: undefined,
      limits: { maxConcurrentCalls: 16, maxQueuedCalls: 64, callsPerMinute: undefined },
      maxBodyBytes: 4 * 1024 * 1024,
      maxUnreadBytes: 32 * 1024 * 1024,
      drainTimeoutMs: 30_000,
      maxSessions: 1000,
      sessionIdleMs: 30 * 60_000,
      version: packageInfo().version,
      forwarder: undefined,
      telemetry: undefined,
      adminTools: false,
      adminToken: undefined,
      replica: { id: expect.stringMatching(/^[0-9a-f-]{36}$/), advertiseUrl: undefined, secret: undefined },
      store: undefined,
      stateDir: undefined,
      logger: silentLogger,
      fastPath: true,
      listWaitMs: 5_000,
      llmResults: false,
    });
  });

  it("an option given as undefined is the same as one left out (what `serve` passes for a flag not typed)", () => {
    fc.assert(
      fc.property(fc.subarray([...OPTIONAL]), (keys) => {
        const given: Record<string, unknown> = { bridge };
        for (const key of keys) given[key] = undefined;
        expect(withoutReplicaId(resolveGatewayOptions(given as unknown as GatewayOptions))).toStrictEqual(
          withoutReplicaId(resolveGatewayOptions({ bridge })),
        );
      }),
      { numRuns: 200 },
    );
  });

  it("keeps every value given within range", () => {
    const resolved = resolveGatewayOptions({
      bridge,
      host: "::1",
      port: 8080,
      limits: { maxConcurrentCalls: 2, callsPerMinute: 0.5 },
      maxBodyBytes: 1,
      maxUnreadBytes: 1,
      drainTimeoutMs: 0,
      maxSessions: 1,
      sessionIdleMs: 0,
      version: "9.9.9",
    });
    expect(resolved).toMatchObject({
      host: "::1",
      loopback: true,
      port: 8080,
      limits: { maxConcurrentCalls: 2, callsPerMinute: 0.5 },
      maxBodyBytes: 1,
      maxUnreadBytes: 1,
      drainTimeoutMs: 0,
      maxSessions: 1,
      sessionIdleMs: 0,
      version: "9.9.9",
    });
  });

  it.each([
    ["port", { port: 70_000 }],
    ["port", { port: -1 }],
    ["maxBodyBytes", { maxBodyBytes: 0 }],
    ["maxBodyBytes", { maxBodyBytes: 1.5 }],
    ["maxUnreadBytes", { maxUnreadBytes: -1 }],
    ["maxSessions", { maxSessions: Number.NaN }],
    ["drainTimeoutMs", { drainTimeoutMs: -5 }],
    ["sessionIdleMs", { sessionIdleMs: Number.NaN }],
    ["limits.maxConcurrentCalls", { limits: { maxConcurrentCalls: 0 } }],
    ["limits.callsPerMinute", { limits: { callsPerMinute: 0 } }],
    ["limits.maxQueuedCalls", { limits: { maxQueuedCalls: -1 } }],
  ] as const)("refuses %s out of range (%j) as CONFIG_INVALID naming the option", (option, given) => {
    const error = refusal(() => resolveGatewayOptions({ bridge, ...given }));
    expect(error.code).toBe(ErrorCode.ConfigInvalid);
    expect(error.message).toContain(`Gateway option ${option} must be`);
  });

  it("refuses a non-loopback address without tokens or OAuth", () => {
    const error = refusal(() => resolveGatewayOptions({ bridge, host: "0.0.0.0" }));
    expect(error.code).toBe(ErrorCode.ConfigInvalid);
    expect(error.message).toContain("will not listen on 0.0.0.0 without auth");
    expect(resolveGatewayOptions({ bridge, host: "0.0.0.0", tokens: [{ token: "t" }] }).loopback).toBe(false);
  });
});

describe("resolveStdioGatewayOptions", () => {
  it("applies the same table's defaults", () => {
    const resolved = resolveStdioGatewayOptions({});
    expect(resolved).toMatchObject({
      version: packageInfo().version,
      maxMessageBytes: GATEWAY_DEFAULTS.maxMessageBytes,
      maxUnreadBytes: GATEWAY_DEFAULTS.maxUnreadBytes,
      limits: {
        maxConcurrentCalls: GATEWAY_DEFAULTS.maxConcurrentCalls,
        maxQueuedCalls: GATEWAY_DEFAULTS.maxQueuedCalls,
        callsPerMinute: undefined,
      },
    });
    // The channel's one client is limited as configured (serve --stdio --max-calls).
    expect(
      resolveStdioGatewayOptions({ limits: { maxConcurrentCalls: 64, maxQueuedCalls: 0 } }).limits,
    ).toEqual({
      maxConcurrentCalls: 64,
      maxQueuedCalls: 0,
      callsPerMinute: undefined,
    });
    expect(resolved.stdin).toBe(process.stdin);
    expect(resolved.stdout).toBe(process.stdout);
    expect(resolveStdioGatewayOptions({ maxMessageBytes: undefined, onProblem: undefined })).toMatchObject({
      maxMessageBytes: GATEWAY_DEFAULTS.maxMessageBytes,
    });
  });

  it("refuses a message bound that is not a positive whole number", () => {
    expect(refusal(() => resolveStdioGatewayOptions({ maxMessageBytes: 0 })).code).toBe(
      ErrorCode.ConfigInvalid,
    );
  });
});

describe("resolveGatewayOptions: cluster options", () => {
  const secret = new Uint8Array(32);
  it("refuses a store without a cluster secret, unless insecureStore says the store is private", () => {
    const store = "redis://127.0.0.1:6379";
    expect(refusal(() => resolveGatewayOptions({ bridge, store })).message).toContain("--insecure-store");
    expect(resolveGatewayOptions({ bridge, store, insecureStore: true }).store).toBe(store);
  });

  it("refuses a store that is not a Redis URL (its password never shown), a short secret and a bad replica id", () => {
    expect(
      refusal(() =>
        resolveGatewayOptions({ bridge, store: "http://user:hunter2@h:1", clusterSecret: secret }),
      ).message,
    ).not.toContain("hunter2");
    expect(refusal(() => resolveGatewayOptions({ bridge, clusterSecret: new Uint8Array(8) })).code).toBe(
      ErrorCode.ConfigInvalid,
    );
    expect(refusal(() => resolveGatewayOptions({ bridge, replicaId: "a b\n" })).code).toBe(
      ErrorCode.ConfigInvalid,
    );
    expect(refusal(() => resolveGatewayOptions({ bridge, advertiseUrl: "ftp://x" })).code).toBe(
      ErrorCode.ConfigInvalid,
    );
    const given = resolveGatewayOptions({
      bridge,
      store: "redis://127.0.0.1:6379",
      clusterSecret: secret,
      replicaId: "pod-1",
    });
    expect(given.store).toBe("redis://127.0.0.1:6379");
    expect(given.replica.id).toBe("pod-1");
  });
});
