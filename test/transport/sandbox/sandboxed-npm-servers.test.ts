import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Bridge, startBridge } from "../../../src/index.js";

const bwrap = ["/usr/bin/bwrap", "/bin/bwrap", "/usr/local/bin/bwrap"].find((path) => existsSync(path));
const skip =
  process.platform !== "linux" ? "sandbox tests need Linux" : bwrap ? undefined : "bwrap is not installed";
if (skip) console.log(`skipped: ${skip}`);

const npmServer = (name: string, ...args: string[]) => [
  join(process.cwd(), `node_modules/@modelcontextprotocol/${name}/dist/index.js`),
  ...args,
];

/** The reference servers from npm start and answer under `sandbox: true` (plus the grants they need). */
describe.skipIf(skip !== undefined)("npm reference servers, sandboxed", () => {
  let folder: string;
  let outside: string;
  let bridge: Bridge;

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), "mcp-bridge-sandbox-fs-"));
    outside = mkdtempSync(join(tmpdir(), "mcp-bridge-sandbox-outside-"));
    writeFileSync(join(folder, "hello.txt"), "hello from the grant");
    writeFileSync(join(outside, "secret.txt"), "not for the server");
    bridge = await startBridge({
      servers: {
        filesystem: {
          command: process.execPath,
          // The server is told about both folders; the sandbox shows it only the one granted.
          args: npmServer("server-filesystem", folder, outside),
          sandbox: { write: [folder] },
        },
        memory: {
          command: process.execPath,
          args: npmServer("server-memory"),
          env: { MEMORY_FILE_PATH: "/tmp/memory.jsonl" },
          sandbox: true,
        },
        everything: {
          command: process.execPath,
          args: npmServer("server-everything", "stdio"),
          sandbox: true,
        },
      },
    });
  }, 90_000);

  afterAll(async () => {
    await bridge?.close();
    rmSync(folder, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  });

  it("all three connect and say they are sandboxed", () => {
    for (const server of bridge.servers()) {
      expect(server, server.lastError?.message).toMatchObject({ state: "connected", sandboxed: true });
    }
  });

  it("server-filesystem reads and writes its grant, and cannot see past it", async () => {
    const read = await bridge.call("filesystem/read_text_file", { path: join(folder, "hello.txt") });
    expect(read.text).toContain("hello from the grant");
    await bridge.call("filesystem/write_file", { path: join(folder, "new.txt"), content: "written inside" });
    expect(readFileSync(join(folder, "new.txt"), "utf8")).toBe("written inside");
    // Refused either way (the server drops a folder it cannot see, and could not read it anyway).
    const secret = await bridge.call("filesystem/read_text_file", { path: join(outside, "secret.txt") }).then(
      (result) => ({ isError: result.isError, text: result.text }),
      (error: Error) => ({ isError: true, text: error.message }),
    );
    expect(secret.isError).toBe(true);
    expect(secret.text).not.toContain("not for the server");
  });

  it("server-memory keeps its graph in the private /tmp", async () => {
    await bridge.call("memory/create_entities", {
      entities: [{ name: "sandbox", entityType: "test", observations: ["kept"] }],
    });
    const graph = await bridge.call("memory/read_graph", {});
    expect(graph.text).toContain("sandbox");
    expect(existsSync("/tmp/memory.jsonl")).toBe(false);
  });

  it("server-everything answers a call", async () => {
    const echo = await bridge.call("everything/echo", { message: "from the sandbox" });
    expect(echo.text).toContain("from the sandbox");
  });
});
