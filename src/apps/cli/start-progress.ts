import type { ServerStatus } from "../../connection/server-status.js";

export interface StartProgress {
  /** Connected servers; a failed one is never counted as ready. */
  readonly ready: number;
  readonly failed: number;
  /** Servers being started (disabled, idle and invalid entries are not). */
  readonly total: number;
  readonly pending: readonly string[];
}

/** Where a start stands, from the servers' states. Pure. */
export function startProgress(servers: readonly Pick<ServerStatus, "name" | "state">[]): StartProgress {
  const starting = servers.filter(
    (s) => s.state !== "disabled" && s.state !== "idle" && s.state !== "invalid",
  );
  const ready = starting.filter((s) => s.state === "connected").length;
  const failed = starting.filter((s) => s.state === "failed").length;
  const pending = starting.filter((s) => s.state !== "connected" && s.state !== "failed").map((s) => s.name);
  return { ready, failed, total: starting.length, pending };
}

/** `3/5 ready, 1 failed`: the spinner's text (without the waiting list). */
export function progressText(progress: StartProgress): string {
  return `${progress.ready}/${progress.total} ready${progress.failed ? `, ${progress.failed} failed` : ""}`;
}
