import { describe, expect, it } from "vitest";
import { stdioEntry } from "../fixtures/servers/index.js";
import { cliHome, runCli } from "../helpers/cli.js";

// A server that never answers its handshake: `status` said `connecting`, no error, exit 0, while
// `call` said it failed. Both must give the same state and reason, and `status` exit non-zero.
const home = cliHome({
  normal: stdioEntry("normal"),
  hang: stdioEntry("never-answers", { startupTimeout: "1s" }),
});

interface Row {
  readonly name: string;
  readonly state: string;
  readonly error: { code: string; message: string } | null;
}

describe("a server whose handshake timed out", () => {
  it("status: failed with the timeout's reason, exit 1; call: the same reason", async () => {
    const status = await runCli(["status", "--json", "-c", home.config], { cwd: home.home, env: home.env });
    expect(status.code, status.stderr).toBe(1);
    const rows = (JSON.parse(status.stdout) as { servers: Row[] }).servers;
    const hang = rows.find((row) => row.name === "hang");
    expect(hang?.state).toBe("failed");
    expect(hang?.error?.code).toBe("SERVER_START_TIMEOUT");
    expect(rows.find((row) => row.name === "normal")?.state).toBe("connected");
    const call = await runCli(["call", "hang/anything", "--json", "--no-daemon", "-c", home.config], {
      cwd: home.home,
      env: home.env,
    });
    expect(call.code).not.toBe(0);
    expect(call.stdout + call.stderr).toContain("did not complete the MCP handshake within 1000 ms");
    expect(hang?.error?.message).toContain("did not complete the MCP handshake within 1000 ms");
  }, 60_000);
});
