import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import type { CliIO } from "../../src/apps/cli/cli-io.js";
import { browserCommand, isWebUrl, urlElicitation } from "../../src/apps/cli/url-elicitation.js";

function terminalIO(tty: boolean): { io: CliIO; stdin: PassThrough; stderr: () => string } {
  const stdin = Object.assign(new PassThrough(), { isTTY: tty });
  const stderr = Object.assign(new PassThrough(), { isTTY: tty });
  let written = "";
  stderr.on("data", (chunk: Buffer) => {
    written += chunk.toString("utf8");
  });
  const io: CliIO = { stdout: new PassThrough(), stderr, stdin, env: {}, cwd: process.cwd() };
  return { io, stdin, stderr: () => written };
}

const decline = () => ({ action: "decline" as const });

describe("CLI URL elicitation", () => {
  it("prints the URL and, on a terminal, opens it when the person says yes", async () => {
    const { io, stdin, stderr } = terminalIO(true);
    const opened: string[] = [];
    const handler = urlElicitation(io, decline, (url) => opened.push(url));
    const answer = handler({
      server: "s\u001b[2J",
      mode: "url",
      message: "Log in",
      url: "https://example.com/x",
    });
    stdin.write("y\n");
    expect(await answer).toEqual({ action: "accept", content: {} });
    expect(opened).toEqual(["https://example.com/x"]);
    expect(stderr()).toContain("https://example.com/x");
    expect(stderr()).not.toContain("\u001b[2J");
  });

  it("declines without a terminal, and never offers a non-web URL", async () => {
    const opened: string[] = [];
    const pipe = terminalIO(false);
    expect(
      await urlElicitation(pipe.io, decline, (url) => opened.push(url))({
        server: "s",
        mode: "url",
        message: "m",
        url: "https://example.com",
      }),
    ).toEqual({ action: "decline" });
    expect(pipe.stderr()).toContain("https://example.com");
    const tty = terminalIO(true);
    expect(
      await urlElicitation(tty.io, decline, (url) => opened.push(url))({
        server: "s",
        mode: "url",
        message: "m",
        url: "file:///etc/passwd",
      }),
    ).toEqual({ action: "decline" });
    expect(opened).toEqual([]);
    expect(isWebUrl("javascript:alert(1)")).toBe(false);
    expect(browserCommand("linux", "https://a")).toEqual({ command: "xdg-open", args: ["https://a"] });
  });
});
