import { describe, expect, it } from "vitest";
import { type Logger, startBridge } from "../../src/index.js";
import { inProcessEntry } from "../helpers/in-process.js";
import { tempDirs } from "../helpers/wait.js";

const tempDir = tempDirs("mcp-bridge-startup-log-");

/** A logger that keeps every line, by level. */
function recordingLogger(): Logger & { lines: { level: string; message: string; fields?: object }[] } {
  const lines: { level: string; message: string; fields?: object }[] = [];
  const at =
    (level: string) =>
    (message: string, fields?: object): void => {
      lines.push({ level, message, ...(fields ? { fields } : {}) });
    };
  return { lines, debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}

describe("the startup info lines", () => {
  it("one line per connected server with its tool count, then the total once", async () => {
    const logger = recordingLogger();
    await using bridge = await startBridge({
      servers: {
        one: inProcessEntry("normal"),
        two: inProcessEntry("normal", { include: ["add"] }),
        off: inProcessEntry("normal", { enabled: false }),
      },
      logger,
      env: { HOME: tempDir() },
      catalogCache: false,
    });
    await bridge.ready();
    const info = logger.lines.filter((line) => line.level === "info");
    const perServer = info.filter((line) => /^Server "/.test(line.message));
    expect(
      perServer.map((line) => line.fields).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
    ).toEqual([
      { server: "one", tools: 6 },
      { server: "two", tools: 6 },
    ]);
    expect(perServer[0]?.message).toMatch(/^Server "(one|two)" connected with 6 tools/);
    const totals = info.filter((line) => /servers connected/.test(line.message));
    // "two" lists 6 tools but publishes only "add": the total is what the host sees.
    expect(totals).toEqual([
      {
        level: "info",
        message: "2 of 3 servers connected, 7 tools in all",
        fields: { servers: 3, connected: 2, tools: 7 },
      },
    ]);
  });

  it("a bridge whose servers start no connection logs its total at once", async () => {
    const logger = recordingLogger();
    await using bridge = await startBridge({
      servers: { lazy: inProcessEntry("normal", { lazy: true }) },
      logger,
      env: { HOME: tempDir() },
      catalogCache: false,
    });
    expect(bridge.servers()[0]?.state).toBe("idle");
    expect(logger.lines.filter((line) => line.level === "info").map((line) => line.message)).toEqual([
      "0 of 1 servers connected, 0 tools in all",
    ]);
  });
});
