import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Route, router } from "../../src/apps/gateway/entry/http-routes.js";

// The gateway's router is a table: the first row whose method and path pattern take a request answers
// it, and a request no row takes is 404. Served here by a bare node:http server, without a gateway.
describe("the HTTP router", () => {
  let server: Server;
  let base: string;
  const seen: string[] = [];
  const routes: Route[] = [
    { path: "/exact", handle: (_req, res) => void res.end("exact") },
    {
      method: "POST",
      path: (path) => path.startsWith("/post/"),
      handle: (_req, res, path) => void res.end(`post ${path}`),
    },
    {
      path: (path) => path.startsWith("/post/") || path === "/any",
      handle: (req, res, path) => {
        seen.push(`${req.method} ${path}`);
        res.end("second");
      },
    },
  ];

  beforeAll(async () => {
    const route = router(routes);
    server = createServer((req, res) => void route(req, res));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("answers with the first row that takes the method and the path (query ignored)", async () => {
    expect(await (await fetch(`${base}/exact?x=1`)).text()).toBe("exact");
    expect(await (await fetch(`${base}/post/a`, { method: "POST" })).text()).toBe("post /post/a");
    expect(await (await fetch(`${base}/post/a`)).text()).toBe("second");
    expect(seen).toEqual(["GET /post/a"]);
  });

  it("answers 404 when no row takes the request", async () => {
    const response = await fetch(`${base}/nowhere`);
    expect(response.status).toBe(404);
    expect(response.headers.get("content-type")).toContain("application/json");
  });
});
