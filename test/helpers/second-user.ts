import { execFileSync } from "node:child_process";

/** A second local user for hostile tests: created when absent (we run as root), or why there is none. */
export interface SecondUser {
  readonly name: string;
  readonly uid: number;
  readonly gid: number;
  /** Runs `command args` as this user (no shell), returning its stdout. */
  run(command: string, args: readonly string[]): string;
}

const NAME = "mcpbridge-other";

function idOf(flag: "-u" | "-g"): number {
  return Number(execFileSync("id", [flag, NAME], { encoding: "utf8" }).trim());
}

/** The second user, or a string saying why it cannot be had (then the test is skipped with that reason). */
export function secondUser(): SecondUser | string {
  if (process.platform !== "linux") return "hostile-user tests need Linux";
  if (process.getuid?.() !== 0) return "hostile-user tests need root to create and act as a second user";
  try {
    idOf("-u");
  } catch {
    try {
      execFileSync("useradd", ["-M", "-r", "-s", "/usr/sbin/nologin", NAME], { stdio: "ignore" });
    } catch (error) {
      return `cannot create user ${NAME}: ${(error as Error).message}`;
    }
  }
  return {
    name: NAME,
    uid: idOf("-u"),
    gid: idOf("-g"),
    run: (command, args) =>
      execFileSync("runuser", ["-u", NAME, "--", command, ...args], { encoding: "utf8", timeout: 20_000 }),
  };
}
