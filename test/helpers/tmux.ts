import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * A real terminal for terminal-UI tests: a detached tmux session of a fixed size on a private
 * server socket, driven with send-keys and read with capture-pane. The command is executed directly
 * (no shell). `close()` kills the tmux server and with it everything in the session.
 */
export class TmuxSession {
  readonly #socket: string;
  readonly #config: string;
  readonly name = "t";

  constructor(
    argv: readonly string[],
    options: {
      cwd: string;
      env: Record<string, string>;
      width?: number;
      height?: number;
      /** Keep the pane (and its screen) after the program exits. */
      remainOnExit?: boolean;
    },
  ) {
    this.#socket = `mcpb-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
    this.#config = join(mkdtempSync(join(tmpdir(), "mcpb-tmux-")), "tmux.conf");
    writeFileSync(this.#config, options.remainOnExit ? "set -g remain-on-exit on\n" : "");
    const env = Object.entries(options.env).flatMap(([key, value]) => ["-e", `${key}=${value}`]);
    this.#tmux([
      "new-session",
      "-d",
      "-s",
      this.name,
      "-x",
      String(options.width ?? 80),
      "-y",
      String(options.height ?? 40),
      "-c",
      options.cwd,
      ...env,
      "--",
      ...argv,
    ]);
  }

  static available(): boolean {
    try {
      execFileSync("tmux", ["-V"], { stdio: "ignore" });
      return true;
    } catch {
      return false;
    }
  }

  /** Types text (literally) and, unless told otherwise, presses Enter. */
  type(text: string, enter = true): void {
    this.#tmux(["send-keys", "-t", this.name, "-l", text]);
    if (enter) this.keys("Enter");
  }

  keys(...keys: string[]): void {
    this.#tmux(["send-keys", "-t", this.name, ...keys]);
  }

  screen(): string {
    return this.#tmux(["capture-pane", "-p", "-J", "-S", "-200", "-t", this.name]);
  }

  /** Whether the program in the pane has exited (with remain-on-exit the pane stays). */
  dead(): boolean {
    return this.#tmux(["display-message", "-p", "-t", this.name, "#{pane_dead}"]).trim() === "1";
  }

  /** The pane's title, which programs can set with OSC 0/2 escape sequences. */
  title(): string {
    return this.#tmux(["display-message", "-p", "-t", this.name, "#{pane_title}"]).trim();
  }

  /** The pid of the program running in the pane (tmux executed it directly). */
  panePid(): number {
    return Number(this.#tmux(["list-panes", "-t", this.name, "-F", "#{pane_pid}"]).trim());
  }

  alive(): boolean {
    try {
      this.#tmux(["has-session", "-t", this.name]);
      return true;
    } catch {
      return false;
    }
  }

  /** Waits until the screen matches, or fails with the screen in the message. */
  async waitFor(pattern: RegExp, timeoutMs = 15_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const screen = this.alive() ? this.screen() : "";
      if (pattern.test(screen)) return screen;
      if (Date.now() > deadline) throw new Error(`screen never matched ${pattern}:\n${screen}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  close(): void {
    try {
      this.#tmux(["kill-server"]);
    } catch {
      // already gone
    }
  }

  #tmux(args: readonly string[]): string {
    return execFileSync("tmux", ["-L", this.#socket, "-f", this.#config, ...args], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      timeout: 10_000,
    });
  }
}

/** Every descendant process of `pid` (Linux /proc). */
export function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      const list = children.get(ppid) ?? [];
      list.push(Number(entry));
      children.set(ppid, list);
    } catch {
      // exited meanwhile
    }
  }
  const out: number[] = [];
  const walk = (p: number) => {
    for (const child of children.get(p) ?? []) {
      out.push(child);
      walk(child);
    }
  };
  walk(pid);
  return out;
}
