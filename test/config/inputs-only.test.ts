import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig, startBridge } from "../../src/index.js";
import { stdioEntry } from "../fixtures/servers/index.js";
import { tempDirs } from "../helpers/wait.js";

const tempDir = tempDirs("mcp-bridge-inputs-only-");

/** A VS Code mcp.json: two servers, each with its own `${input:…}`. */
function vscodeConfig(): string {
  const file = join(tempDir(), "mcp.json");
  writeFileSync(
    file,
    JSON.stringify({
      inputs: [
        { type: "promptString", id: "calc-key", description: "Calc key", password: true },
        { type: "promptString", id: "other-key", description: "Other key", password: true },
      ],
      servers: {
        calc: stdioEntry("normal", { env: { KEY: "${input:calc-key}" } }),
        other: stdioEntry("normal", { env: { KEY: "${input:other-key}" } }),
      },
    }),
  );
  return file;
}

describe("VS Code inputs", () => {
  it("are asked for only for the servers being started", async () => {
    const path = vscodeConfig();
    const asked: string[] = [];
    const resolveInput = (request: { id: string }) => {
      asked.push(request.id);
      return "answer";
    };
    const config = await loadConfig({
      path,
      env: { HOME: tempDir() },
      resolveInput,
      only: new Set(["calc"]),
    });
    expect(asked).toEqual(["calc-key"]);
    expect(config.servers.map((server) => server.name)).toEqual(["calc"]);

    asked.length = 0;
    await using bridge = await startBridge({
      config: path,
      env: { HOME: tempDir() },
      resolveInput,
      only: ["calc"],
      catalogCache: false,
    });
    expect(asked).toEqual(["calc-key"]);
    expect((await bridge.call("calc/add", { a: 1, b: 2 })).text).toBe("3");
  });
});
