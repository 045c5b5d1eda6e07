import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cliEnv, spawnCli } from "../helpers/cli.js";

/** `mcp-bridge … | head`: the reader leaves before the CLI writes; the CLI ends quietly. */

const home = mkdtempSync(join(tmpdir(), "mcp-bridge-closed-stdout-"));
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe("a reader that closes stdout early", () => {
  it.each([[["--help"]], [["daemon", "status"]], [["config", "paths"]]])(
    "%j ends without an uncaught EPIPE",
    async (args) => {
      const child = spawnCli(args, { cwd: home, env: cliEnv(home) });
      // Closed before the CLI has booted: its first write fails with EPIPE.
      child.stdout?.destroy();
      let stderr = "";
      child.stderr?.on("data", (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
      expect(stderr).not.toMatch(/EPIPE|Unhandled|uncaught/i);
      expect(code === 0 || code === 2).toBe(true);
    },
    20_000,
  );
});
