import { createHash } from "node:crypto";
import { realpathSync, rmSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { withFileLockSync } from "../../util/file-lock.js";
import { readPrivateFile, writePrivateFile } from "../../util/private-file.js";
import { ensurePrivateDir } from "../../util/private-path.js";

/** The folder of remembered VS Code input answers: `$XDG_CONFIG_HOME/mcp-bridge/inputs`. */
export function defaultInputsDir(env: Readonly<Record<string, string | undefined>>): string {
  const home = env.HOME ?? homedir();
  return join(env.XDG_CONFIG_HOME || join(home, ".config"), "mcp-bridge", "inputs");
}

interface StoredInputs {
  /** The config file the answers belong to (shown to a user who looks in the folder). */
  readonly config: string;
  readonly answers: Record<string, string>;
}

/**
 * The answers to one config file's `${input:id}` prompts, kept between runs as VS Code keeps them:
 * one JSON file per config file (named by a hash of its real path), mode 0600 in a 0700 folder, like
 * the OAuth tokens (answers are mostly API keys). A file that is a link or another user's is never
 * read or written through; a folder that is a link, another user's or writable by others is refused.
 */
export class InputStore {
  readonly file: string;
  readonly #config: string;

  constructor(
    readonly dir: string,
    config: string,
  ) {
    this.#config = realPath(config);
    const id = createHash("sha256").update(this.#config).digest("hex").slice(0, 16);
    this.file = join(dir, `${id}.json`);
  }

  /** The remembered answers by input id; empty when none (or the file is refused or unreadable). */
  answers(): Record<string, string> {
    const text = readPrivateFile(this.file);
    if (text === undefined) return {};
    try {
      const parsed = JSON.parse(text) as Partial<StoredInputs>;
      if (parsed.config !== this.#config || typeof parsed.answers !== "object" || !parsed.answers) return {};
      return Object.fromEntries(
        Object.entries(parsed.answers).filter(
          (entry): entry is [string, string] => typeof entry[1] === "string",
        ),
      );
    } catch {
      return {};
    }
  }

  /**
   * Adds one answer, under the file's lock so two runs answering at once keep both. Throws UNSAFE_PATH
   * for a refused folder or a link at the file (replaceFileAtomic never writes through one).
   */
  remember(id: string, value: string): void {
    ensurePrivateDir(this.dir, { what: "remembered inputs folder" });
    withFileLockSync(this.file, () => {
      const next: StoredInputs = { config: this.#config, answers: { ...this.answers(), [id]: value } };
      writePrivateFile(this.file, JSON.stringify(next, null, 2), "remembered inputs");
    });
  }

  /** Forgets every answer of this config file; true when there were any. */
  forget(): boolean {
    const had = Object.keys(this.answers()).length > 0;
    rmSync(this.file, { force: true });
    return had;
  }
}

function realPath(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return resolve(file);
  }
}
