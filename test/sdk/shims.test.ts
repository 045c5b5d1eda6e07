import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { useIdTables } from "../../src/sdk/protocol-tables.js";
import { SettledResponse } from "../../src/sdk/settled-response.js";
import {
  installedVersion,
  SDK_SHIMS,
  SDK_SHIMS_ENV,
  sdkShimEnabled,
  setSdkShims,
} from "../../src/sdk/shims.js";

const saved = process.env[SDK_SHIMS_ENV];
afterEach(() => {
  if (saved === undefined) delete process.env[SDK_SHIMS_ENV];
  else process.env[SDK_SHIMS_ENV] = saved;
  setSdkShims(undefined);
});

/** The switch as a process started with `value` in its environment reads it. */
function enabledWith(value: string | undefined): string[] {
  if (value === undefined) delete process.env[SDK_SHIMS_ENV];
  else process.env[SDK_SHIMS_ENV] = value;
  setSdkShims(undefined);
  return SDK_SHIMS.filter((shim) => sdkShimEnabled(shim));
}

describe("the SDK shims' switch", () => {
  it("keeps every shim by default, none with 0 or off, and just the ones a list names", () => {
    expect(enabledWith(undefined)).toEqual([...SDK_SHIMS]);
    expect(enabledWith("1")).toEqual([...SDK_SHIMS]);
    expect(enabledWith("0")).toEqual([]);
    expect(enabledWith(" OFF ")).toEqual([]);
    expect(enabledWith("keepalive-fetch, id-tables,nonsense")).toEqual(["id-tables", "keepalive-fetch"]);
  });

  it("reads the environment once, until a test sets or resets it", () => {
    expect(enabledWith("0")).toEqual([]);
    process.env[SDK_SHIMS_ENV] = "1";
    expect(sdkShimEnabled("id-tables")).toBe(false);
    setSdkShims(["keepalive-fetch"]);
    expect(SDK_SHIMS.filter((shim) => sdkShimEnabled(shim))).toEqual(["keepalive-fetch"]);
    setSdkShims(true);
    expect(SDK_SHIMS.every((shim) => sdkShimEnabled(shim))).toBe(true);
  });

  it("leaves an SDK protocol's tables as they are with the id-tables shim off", () => {
    setSdkShims(false);
    const protocol = { _responseHandlers: new Map() };
    const table = protocol._responseHandlers;
    useIdTables(protocol);
    expect(protocol._responseHandlers).toBe(table);
  });
});

describe("feature detection of the SDK internals", () => {
  it("reads the installed SDK's version, as package-lock.json records it", () => {
    const lock = JSON.parse(readFileSync("package-lock.json", "utf8")) as {
      packages: Record<string, { version: string }>;
    };
    const locked = lock.packages["node_modules/@modelcontextprotocol/server"]?.version;
    expect(installedVersion("@modelcontextprotocol/server")).toBe(locked);
    expect(installedVersion("@modelcontextprotocol/no-such-package")).toBeUndefined();
  });

  it("gives a settled response's bytes to a reader that reads its body stream instead of json()", async () => {
    const text = '{"jsonrpc":"2.0","id":1,"result":{}}';
    const response = new SettledResponse({ json: undefined, text }, { status: 200 });
    expect(await new Response(response.body).text()).toBe(text);
    expect(await response.json()).toEqual(JSON.parse(text));
  });
});
