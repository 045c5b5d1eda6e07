import { Server } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import { RunningCalls } from "../../src/apps/gateway/admission/running-calls.js";
import { LegacySessions, type SessionObserver } from "../../src/apps/gateway/identity/legacy-sessions.js";

/**
 * With a cluster store, a client's next request may reach another replica, which looks its session
 * up in the store: the `initialize` answer (which gives the client its session id) waits until the
 * session is recorded. Before, the record was written in the background and a quick client's
 * `notifications/initialized` reached a replica that answered "Session not found".
 */

const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
};

function initializeRequest(): Request {
  return new Request("http://gateway/mcp", {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify(INITIALIZE),
  });
}

describe("a new 2025-11-25 session in a cluster", () => {
  it("is answered only once the store has recorded it", async () => {
    let record = () => {};
    const events: string[] = [];
    const observer: SessionObserver = {
      opened: (id) => {
        events.push(`opened ${id !== ""}`);
        return new Promise<void>((resolve) => {
          record = () => {
            events.push("recorded");
            resolve();
          };
        });
      },
      message: () => undefined,
      touched: () => undefined,
      ended: () => undefined,
    };
    const sessions = new LegacySessions(10, 0, observer);
    const newServer = () => ({
      server: new Server({ name: "gateway", version: "1" }, { capabilities: {} }),
      running: new RunningCalls(),
    });
    const answered = sessions.handle(initializeRequest(), undefined, newServer).then((response) => {
      events.push("answered");
      return response;
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(events).toEqual(["opened true"]);
    record();
    const response = await answered;
    expect(events).toEqual(["opened true", "recorded", "answered"]);
    expect(response?.status).toBe(200);
    expect(response?.headers.get("mcp-session-id")).toBeTruthy();
    await sessions.close();
  });
});
