import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";
import type { Logger } from "../../src/index.js";

/** Polls until the condition holds, bounded in time. */
export async function until(condition: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Temporary directories removed after the test file. */
export function tempDirs(prefix: string): () => string {
  const made: string[] = [];
  afterAll(() => {
    for (const dir of made) rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    made.push(dir);
    return dir;
  };
}

/** A logger that keeps warnings and errors for assertions. */
export function capturingLogger(): { logger: Logger; messages: string[] } {
  const messages: string[] = [];
  const keep = (message: string) => {
    messages.push(message);
  };
  return { logger: { debug() {}, info() {}, warn: keep, error: keep }, messages };
}
