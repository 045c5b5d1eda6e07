import { getEventListeners } from "node:events";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ownSignalFetch } from "../../bench/own-signal-fetch.js";
import { listen } from "../helpers/http-servers.js";

/**
 * `npm run bench`'s gateway section printed "MaxListenersExceededWarning: 1501 abort listeners added
 * to [AbortSignal]": the SDK's Streamable HTTP transport gives its one lifelong signal to every
 * request, and Node's fetch keeps a listener on it per request until that request is collected. The
 * bench's plain SDK clients now give each request a signal of its own (bench/own-signal-fetch.ts).
 */

const REQUESTS = 2_000;
let warnings: string[] = [];
const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
beforeEach(() => {
  warnings = [];
  process.on("warning", onWarning);
});
afterEach(() => {
  process.off("warning", onWarning);
});

/** `count` POSTs with one long-lived signal, as the SDK transport sends them; the listeners left on it. */
async function requestsWith(
  fetchWith: (url: string, init: RequestInit) => Promise<Response>,
  count: number,
  url: string,
  signal: AbortSignal,
) {
  for (let i = 0; i < count; i++) {
    const response = await fetchWith(url, { method: "POST", body: `{"i":${i}}`, signal });
    if ((await response.text()) !== `{"i":${i}}`) throw new Error(`request ${i}: wrong answer`);
  }
  return getEventListeners(signal, "abort").length;
}

describe("one transport signal over thousands of requests", () => {
  it("holds no listener per request with the bench's fetch, and Node prints no warning", async () => {
    await using server = await listen((req, res) => {
      req.pipe(res);
    });
    const transport = new AbortController();
    const left = await requestsWith(ownSignalFetch, REQUESTS, server.url, transport.signal);
    expect(left).toBe(0);
    // Still linked while a response streams: aborting the transport ends it.
    const streaming = await ownSignalFetch(server.url, {
      method: "POST",
      body: "x",
      signal: transport.signal,
    });
    expect(getEventListeners(transport.signal, "abort").length).toBe(1);
    transport.abort();
    await expect(streaming.text()).rejects.toThrow();
    expect(warnings.filter((w) => w.includes("MaxListeners"))).toEqual([]);
  }, 60_000);

  it("Node's fetch itself keeps one listener per request on the signal (what the bench did)", async () => {
    await using server = await listen((req, res) => {
      req.pipe(res);
    });
    const transport = new AbortController();
    const left = await requestsWith(fetch, 200, server.url, transport.signal);
    // Freed only when each request is garbage collected: most are still there right after.
    expect(left).toBeGreaterThan(100);
  }, 60_000);
});
