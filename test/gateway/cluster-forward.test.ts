import { randomBytes } from "node:crypto";
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { forwardToPeer } from "../../src/apps/gateway/cluster/forward-to-peer.js";
import {
  PEER_HEADERS,
  peerSignatureHeaders,
  verifyPeerRequest,
} from "../../src/apps/gateway/cluster/peer-signature.js";
import { readBody } from "../../src/apps/gateway/cluster/read-body.js";
import { type Gateway, startGateway } from "../../src/apps/gateway/index.js";
import { type Bridge, startBridge } from "../../src/index.js";
import { type LocalHttpServer, listen } from "../helpers/http-servers.js";
import { inProcessEntry } from "../helpers/in-process.js";

const SECRET = randomBytes(32);
const TOKEN = "forward-test-token";

const initialize = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
});

/** POSTs `body` to `url` with `headers`; the status, headers and whole body. */
function post(url: string, body: string, headers: Record<string, string>) {
  return new Promise<{ status: number; headers: Record<string, unknown>; text: string }>(
    (resolve, reject) => {
      const req = request(url, { method: "POST", headers, timeout: 20_000 }, (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          text += chunk;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
      });
      req.on("timeout", () => req.destroy(new Error("timed out")));
      req.on("error", reject);
      req.end(body);
    },
  );
}

const mcpHeaders = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  authorization: `Bearer ${TOKEN}`,
};

describe("forwarding between gateway replicas", () => {
  let bridge: Bridge;
  let owner: Gateway;
  let front: LocalHttpServer;

  beforeAll(async () => {
    bridge = await startBridge({ servers: { normal: inProcessEntry("normal") } });
    owner = await startGateway({ bridge, tokens: [{ token: TOKEN }], clusterSecret: SECRET, replicaId: "a" });
    // A stand-in for another replica: forwards whatever it gets to the owner, signed with `secret` header.
    front = await listen(async (req, res) => {
      const body = await readBody(req, 1024 * 1024);
      if (body === "too-large") throw new Error("unexpected");
      const secret = req.headers["x-test-secret"] === "wrong" ? randomBytes(32) : SECRET;
      const outcome = await forwardToPeer(
        owner.url,
        { method: req.method ?? "POST", path: req.url ?? "/mcp", headers: req.headers, body },
        res,
        { replicaId: "b", secret },
      );
      if (!outcome.answered) {
        res.writeHead(599);
        res.end(outcome.error.message);
      }
    });
  }, 60_000);

  afterAll(async () => {
    await front?.close();
    await owner?.close();
    await bridge?.close();
  });

  it("passes the owner's answer back, event stream and session header included", async () => {
    const answer = await post(front.url, initialize, mcpHeaders);
    expect(answer.status).toBe(200);
    expect(answer.headers["mcp-session-id"]).toEqual(expect.any(String));
    expect(answer.text).toContain('"serverInfo"');
  });

  it("the owner still checks the client's own credential", async () => {
    const answer = await post(front.url, initialize, { ...mcpHeaders, authorization: "Bearer stolen" });
    expect(answer.status).toBe(401);
  });

  it("a request signed with another secret, or claiming to be forwarded without a signature, is refused", async () => {
    expect((await post(front.url, initialize, { ...mcpHeaders, "x-test-secret": "wrong" })).status).toBe(403);
    const forged = await post(owner.url, initialize, {
      ...mcpHeaders,
      [PEER_HEADERS.replica]: "b",
      [PEER_HEADERS.time]: String(Date.now()),
      [PEER_HEADERS.signature]: "AAAA",
    });
    expect(forged.status).toBe(403);
  });

  it("a signature holds only for its own body, path and time", () => {
    const now = Date.now();
    const signed = { method: "POST", path: "/mcp", headers: {}, body: Buffer.from("{}") };
    const headers = peerSignatureHeaders(SECRET, signed, "b", now);
    const check = (body: string, at: number, path = "/mcp") =>
      verifyPeerRequest(SECRET, { method: "POST", path, headers, body: Buffer.from(body) }, at).ok;
    expect(check("{}", now)).toBe(true);
    expect(check('{"x":1}', now)).toBe(false);
    expect(check("{}", now, "/mcp?x")).toBe(false);
    expect(check("{}", now + 60_000)).toBe(false);
    expect(verifyPeerRequest(randomBytes(32), { ...signed, headers }, now).ok).toBe(false);
  });

  it("a peer that cannot be reached leaves the client's response untouched", async () => {
    const gone = await listen(() => undefined);
    const goneUrl = gone.url;
    await gone.close();
    await using probe = await listen(async (req, res) => {
      const outcome = await forwardToPeer(
        goneUrl,
        { method: "POST", path: "/mcp", headers: req.headers, body: Buffer.from(initialize) },
        res,
        { replicaId: "b", secret: SECRET },
      );
      res.writeHead(outcome.answered ? 200 : 599);
      res.end();
    });
    expect((await post(probe.url, initialize, mcpHeaders)).status).toBe(599);
  });
});
