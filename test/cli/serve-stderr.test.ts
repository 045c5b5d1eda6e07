import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { stdioEntry } from "../fixtures/servers/index.js";
import { CLI, cliHome } from "../helpers/cli.js";

/**
 * `serve --stdio` as a host runs it: a child process whose stderr the host shows its user. One upstream
 * dies at start (saying why on its stderr), a remote one is never reachable (nothing listens on port 1)
 * and is retried in the background every 100 ms at most, another logs at error level while a tool runs.
 */
const home = cliHome({
  broken: stdioEntry("exits-at-start"),
  down: { url: "http://127.0.0.1:1/mcp", restart: { initialDelay: "20ms", retryCeiling: "100ms" } },
  logs: stdioEntry("logs"),
});

/** Initializes, calls the chatty tool, and ends the session; resolves with everything on stderr. */
function serveSession(extra: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, "--config", home.config, ...extra, "serve", "--stdio"], {
      cwd: home.home,
      env: home.env,
    });
    let stdout = "";
    let stderr = "";
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`serve did not finish in time\nstderr: ${stderr}`));
    }, 60_000);
    const send = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`);
    // The channel ends once the call answered and the unreachable upstream was reported (it fails in
    // the background, and on a loaded machine that may come after the call): a host that quits at once
    // would not be shown it, which is no defect.
    const endWhenDone = () => {
      if (stdout.includes('"id":2') && stderr.includes('"down"')) child.stdin.end();
    };
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
      endWhenDone();
    });
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
      if (stdout.includes('"id":1') && !stdout.includes('"id":2') && !stdout.includes("sent-call")) {
        stdout += "sent-call";
        send({ jsonrpc: "2.0", method: "notifications/initialized" });
        send({
          jsonrpc: "2.0",
          id: 2,
          method: "tools/call",
          params: { name: "logs_chatty", arguments: { tag: "x" } },
        });
      }
      // The call answered: end the channel, as a host that quits does.
      endWhenDone();
    });
    child.on("close", () => {
      clearTimeout(timer);
      if (!stdout.includes("done x")) reject(new Error(`the call did not answer\n${stdout}\n${stderr}`));
      else resolve(stderr);
    });
    send({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "host", version: "1" } },
    });
  });
}

describe("serve's stderr", () => {
  it("shows one warning per failed upstream, with its reason, and no upstream chatter", async () => {
    const stderr = await serveSession([]);
    const lines = stderr.split("\n").filter((l) => l.length > 0);
    const broken = lines.filter((l) => l.includes('"broken"'));
    expect(broken).toHaveLength(1);
    expect(broken[0]).toMatch(/^warning: /);
    // The reason, not only that it failed.
    expect(broken[0]).toMatch(/(exit|code 1)/i);
    // Retried many times while the session ran: still one warning.
    const down = lines.filter((l) => l.includes('"down"'));
    expect(down).toHaveLength(1);
    expect(down[0]).toMatch(/^warning: .*could not be connected.*refused/);
    expect(down[0]?.match(/could not be connected/g)).toHaveLength(1);
    expect(stderr).not.toContain("from x");
    expect(lines.filter((l) => !l.includes('"broken"') && !l.includes('"down"'))).toEqual([]);
  });

  it("shows what upstream servers log with --verbose", async () => {
    const stderr = await serveSession(["--verbose"]);
    expect(stderr).toContain("error from x");
    expect(stderr).toContain("fatal: cannot start (fixture)");
  });
});
