import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { filterTerminalOutput, guardTerminal, terminalText } from "../../src/apps/cli/terminal.js";
import { stdioEntry } from "../fixtures/servers/index.js";
import { CLI, cliEnv, emptyHome } from "../helpers/cli.js";
import { TmuxSession } from "../helpers/tmux.js";

const ESC = "\u001b";
const NASTY = `${ESC}]0;PWNED${ESC}\\${ESC}]2;PWNED\u0007${ESC}]52;c;ZXZpbA==\u0007${ESC}[2J${ESC}[H\rSPOOF\u0007`;

describe("terminal text", () => {
  it("terminalText keeps words, newlines and tabs, and drops every control character", () => {
    // A lone carriage return becomes a newline: what follows starts a line instead of overwriting one.
    expect(terminalText(`a${NASTY}\tb\nc\r\nd`)).toBe(
      "a]0;PWNED\\]2;PWNED]52;c;ZXZpbA==[2J[H\nSPOOF\tb\nc\nd",
    );
    expect(terminalText("\u202eevil\u2066")).toBe("evil");
  });

  it("filterTerminalOutput keeps the CLI's own colors and line editing, and nothing else", () => {
    const ours = `${ESC}[1mbold${ESC}[22m ${ESC}[31mred${ESC}[39m\r${ESC}[2K${ESC}[3D${ESC}[0J\n`;
    expect(filterTerminalOutput(ours)).toBe(ours);
    expect(filterTerminalOutput(`x${NASTY}y`)).toBe("x\rSPOOFy");
    expect(filterTerminalOutput(`${ESC}P+q544e${ESC}\\ok`)).toBe("ok");
  });

  it("no output of the filter contains an escape sequence other than the allowed ones", () => {
    const pieces = fc.oneof(
      fc.string(),
      fc.constantFrom(
        ESC,
        `${ESC}[`,
        `${ESC}]`,
        "\u0007",
        `${ESC}\\`,
        "\u009b",
        "2J",
        "52;c;",
        "m",
        "K",
        ";",
        "0",
      ),
    );
    fc.assert(
      fc.property(fc.array(pieces, { maxLength: 30 }), (parts) => {
        const out = filterTerminalOutput(parts.join(""));
        // Every ESC left starts one of the allowed CSI forms.
        for (let i = out.indexOf(ESC); i !== -1; i = out.indexOf(ESC, i + 1)) {
          expect(out.slice(i)).toMatch(new RegExp(`^${ESC}\\[(?:[0-9;]*[mKABCDG]|0?J)`));
        }
        expect([...out].filter((c) => c !== ESC && /\p{Cc}/u.test(c) && !"\n\t\r".includes(c))).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it("guardTerminal filters writes to a terminal and leaves pipes byte for byte", () => {
    const written: string[] = [];
    const sink = (isTTY: boolean) =>
      ({
        isTTY,
        write: (chunk: string) => {
          written.push(chunk);
          return true;
        },
      }) as unknown as NodeJS.WriteStream;
    guardTerminal(sink(true)).write(`a${NASTY}`);
    guardTerminal(sink(false)).write(`a${NASTY}`);
    expect(written).toEqual(["a\rSPOOF", `a${NASTY}`]);
  });
});

describe("server text on a real terminal (tmux)", () => {
  const sessions: TmuxSession[] = [];
  afterEach(() => {
    for (const session of sessions.splice(0)) session.close();
  });

  it.each([
    [["tools"], "Looks harmless"],
    [["call", "evil/evil"], "result"],
    [["call", "evil/fails"], "bad things"],
  ])(
    "mcp-bridge %s cannot retitle the window, clear the screen or overwrite its output",
    async (args, shown) => {
      const dir = emptyHome();
      const config = join(dir, "mcp.json");
      writeFileSync(config, JSON.stringify({ mcpServers: { evil: stdioEntry("escape-sequences") } }));
      // The command prints and exits; the pane stays (remain-on-exit) so its screen and title can be read.
      const term = new TmuxSession([process.execPath, resolve(CLI), ...args, "-c", config], {
        cwd: dir,
        env: { ...cliEnv(dir), TERM: "xterm-256color" },
        remainOnExit: true,
      });
      sessions.push(term);
      await expect.poll(() => term.dead(), { timeout: 15_000 }).toBe(true);
      // Still on screen: no clear-screen and no carriage return wiped or overwrote it.
      expect(term.screen()).toContain(shown);
      expect(term.title()).not.toContain("PWNED");
    },
    30_000,
  );
});
