import { afterEach, describe, expect, it } from "vitest";
import { type Gateway, startGateway } from "../../src/apps/gateway/index.js";
import { type Bridge, startBridge } from "../../src/index.js";
import { inProcessEntry } from "../helpers/in-process.js";
import { until } from "../helpers/wait.js";

/**
 * Issue 38.6 (bench/churn.ts measures it at 100,000): sessions their clients abandon (no DELETE, no
 * request ever again) are evicted once their idle time is over, so they hold no slot and no server
 * instance; sessionless requests never hold one. Counted by the slots they hold: with every slot taken
 * a new `initialize` is refused 503; a whole new set fits only once they are evicted.
 */

let bridge: Bridge | undefined;
let gateway: Gateway | undefined;
afterEach(async () => {
  await gateway?.close();
  await bridge?.close();
  gateway = undefined;
  bridge = undefined;
});

const SLOTS = 8;

async function post(url: string, body: unknown, session?: string): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...(session ? { "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" } : {}),
    },
    body: JSON.stringify(body),
  });
}

const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "churn", version: "1" } },
};
const list = { jsonrpc: "2.0", id: 2, method: "tools/list", params: {} };

/** Opens a session and abandons it; its id, or undefined when the gateway refused it (its status). */
async function abandoned(url: string): Promise<{ id?: string; status: number }> {
  const response = await post(url, initialize);
  await response.text();
  return { id: response.headers.get("mcp-session-id") ?? undefined, status: response.status };
}

describe("abandoned 2025-11-25 sessions", () => {
  it("are evicted after their idle time: their slots serve new sessions, their ids answer 404", async () => {
    bridge = await startBridge({ servers: { normal: inProcessEntry("normal") } });
    gateway = await startGateway({ bridge, maxSessions: SLOTS, sessionIdleMs: 200 });
    const url = gateway.url;
    const first = await Promise.all(Array.from({ length: SLOTS }, () => abandoned(url)));
    expect(first.every((session) => session.status === 200 && session.id)).toBe(true);
    // Sessionless GETs (a notification stream opened without a session) hold no slot either.
    for (let i = 0; i < 20; i++) {
      const response = await fetch(url, { headers: { accept: "text/event-stream" } });
      await response.body?.cancel();
      expect(response.headers.get("mcp-session-id")).toBeNull();
    }
    // Every slot is taken until the abandoned sessions are evicted; then a whole new set fits (a
    // refused attempt's sessions are abandoned too, and evicted in turn).
    await until(async () => {
      const again = await Promise.all(Array.from({ length: SLOTS }, () => abandoned(url)));
      return again.every((session) => session.status === 200);
    }, 10_000);
    // The first ones are gone for good: asked only now, since a request would have kept one alive.
    for (const { id } of first) {
      const response = await post(url, list, id);
      await response.text();
      expect(response.status).toBe(404);
    }
  }, 30_000);
});
