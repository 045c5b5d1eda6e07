import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { boundedFetch } from "../../src/transport/bounded-fetch.js";
import { listen } from "../helpers/http-servers.js";

const TOO_LARGE = -32099;
const post = (id: number | string) => ({
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "x" } }),
});

describe("boundedFetch", () => {
  it("ends an SSE stream at an event over the bound, answering its request with an error", async () => {
    await using server = await listen((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream", "content-encoding": "gzip" });
      const event = (data: string) => `event: message\ndata: ${data}\n\n`;
      // Many small events in all exceed the bound; only one event larger than it is cut.
      const small = Array.from({ length: 50 }, (_, i) =>
        event(`{"jsonrpc":"2.0","method":"n","params":{"i":${i}}}`),
      );
      res.end(
        gzipSync(
          `${small.join("")}${event(`{"jsonrpc":"2.0","id":7,"result":{"t":"${"a".repeat(100_000)}"}}`)}`,
        ),
      );
    });
    const fetch = boundedFetch(globalThis.fetch, { maxResponseBytes: 2000, tooLargeCode: TOO_LARGE });
    const text = await (await fetch(server.url, post(7))).text();
    const data = text
      .split("\n")
      .filter((line) => line.startsWith("data: "))
      .map((line) => line.slice(6));
    expect(data.slice(0, 50).map((d) => JSON.parse(d).params.i)).toEqual(
      Array.from({ length: 50 }, (_, i) => i),
    );
    const last = JSON.parse(data.at(-1) as string);
    expect(last).toMatchObject({ id: 7, error: { code: TOO_LARGE } });
    expect(text.length).toBeLessThan(50 * 80 + 2000 + 500);
  });

  it("replaces an oversized JSON response by an error for its request, and passes small ones", async () => {
    await using server = await listen((req, res) => {
      const size = req.headers["x-size"] === "big" ? 100_000 : 10;
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ jsonrpc: "2.0", id: "r1", result: { t: "a".repeat(size) } }));
    });
    const fetch = boundedFetch(globalThis.fetch, { maxResponseBytes: 2000, tooLargeCode: TOO_LARGE });
    const big = await (await fetch(server.url, { ...post("r1"), headers: { "x-size": "big" } })).json();
    expect(big).toMatchObject({ jsonrpc: "2.0", id: "r1", error: { code: TOO_LARGE } });
    const small = await (await fetch(server.url, post("r1"))).json();
    expect(small).toEqual({ jsonrpc: "2.0", id: "r1", result: { t: "a".repeat(10) } });
  });

  it("closes a request's stalled stream once its cancellation is sent", async () => {
    let closed = false;
    await using server = await listen((req, res) => {
      if (JSON.stringify(req.headers).includes("cancel")) {
        res.writeHead(202).end();
        return;
      }
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(": open\n\n");
      res.on("close", () => {
        closed = true;
      });
    });
    const fetch = boundedFetch(globalThis.fetch, { maxResponseBytes: 2000, tooLargeCode: TOO_LARGE });
    const response = await fetch(server.url, post(3));
    const reading = response.text();
    await fetch(server.url, {
      method: "POST",
      headers: { "x-kind": "cancel" },
      body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 3 } }),
    });
    // The stream ends (it does not fail), and the server sees its connection closed.
    expect(typeof (await reading)).toBe("string");
    await expect.poll(() => closed, { timeout: 5000 }).toBe(true);
  });
});
