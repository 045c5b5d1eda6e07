import type { ServerSpec } from "../../config/server-entry.js";
import { splitCommandLine } from "./ad-hoc.js";
import {
  addCommandMissing,
  addEnvInvalid,
  addExtraUrl,
  addFlagForOtherTransport,
  addHeaderInvalid,
  addRemoteAfterTerminator,
  addTransportUnknown,
  addUrlAsCommand,
  addUrlInvalid,
  addUrlMissing,
  addUrlTwice,
} from "./usage-errors.js";

/**
 * The server an `mcp-bridge add` command line describes, in the forms users of other hosts type:
 * Claude Code's `add --transport http|sse NAME URL` and `add NAME -- CMD ARGS`, Codex's
 * `add NAME --url URL` and `add NAME -- CMD ARGS`, with `--env K=V` and `--header 'K: V'` / `K=V`.
 * Anything that could mean two things, and any option the server kind would not use, is a usage
 * error: an option is never dropped silently.
 */

export interface AddOptions {
  readonly url?: string;
  readonly transport?: string;
  readonly env?: readonly string[];
  readonly header?: readonly string[];
  readonly cwd?: string;
}

const TRANSPORTS = ["stdio", "http", "sse"] as const;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** RFC 9110 token characters: what a header name may hold. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

const isUrl = (text: string) => /^https?:\/\//i.test(text);

function checkedUrl(url: string): string {
  if (!isUrl(url) || !URL.canParse(url)) throw addUrlInvalid({ url });
  return url;
}

/** `--env KEY=VALUE` pairs. */
function envPairs(values: readonly string[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const value of values ?? []) {
    const at = value.indexOf("=");
    const key = value.slice(0, Math.max(at, 0));
    if (at <= 0 || !ENV_NAME.test(key)) throw addEnvInvalid({ given: key || value });
    out[key] = value.slice(at + 1);
  }
  return out;
}

/** `--header 'Name: value'` (Claude Code's form) or `--header Name=value`. */
function headerPairs(values: readonly string[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const value of values ?? []) {
    const colon = value.indexOf(":");
    const equals = value.indexOf("=");
    const at = colon >= 0 && (equals < 0 || colon < equals) ? colon : equals;
    const name = at > 0 ? value.slice(0, at).trim() : "";
    if (!HEADER_NAME.test(name)) throw addHeaderInvalid({ given: name || value.slice(0, 40) });
    out[name] = value.slice(at + 1).trim();
  }
  return out;
}

function transportOf(value: string | undefined): (typeof TRANSPORTS)[number] | undefined {
  if (value === undefined) return undefined;
  const normalized = value === "streamable-http" || value === "streamableHttp" ? "http" : value;
  if (!(TRANSPORTS as readonly string[]).includes(normalized)) throw addTransportUnknown({ value });
  return normalized as (typeof TRANSPORTS)[number];
}

/** The positionals after NAME, how many came before `--` (undefined without one), and the options. */
export function addedServer(
  rest: readonly string[],
  terminatorAt: number | undefined,
  options: AddOptions,
): ServerSpec {
  const transport = transportOf(options.transport);
  const afterTerminator = terminatorAt !== undefined;
  const remote =
    transport === "http" ||
    transport === "sse" ||
    (transport === undefined &&
      (options.url !== undefined || (!afterTerminator && rest.length === 1 && isUrl(rest[0] as string))));
  if (remote) {
    const kind = transport === "sse" ? "sse" : "http";
    if (options.env?.length) throw addFlagForOtherTransport({ flag: "env" });
    if (options.cwd !== undefined) throw addFlagForOtherTransport({ flag: "cwd" });
    if (afterTerminator) throw addRemoteAfterTerminator({ kind });
    if (options.url !== undefined && rest.length > 0) throw addUrlTwice({ positional: rest[0] as string });
    if (rest.length > 1) throw addExtraUrl({ kind, extra: rest[1] as string });
    const url = options.url ?? rest[0];
    if (url === undefined) throw addUrlMissing({ kind });
    return { transport: kind, url: checkedUrl(url), headers: headerPairs(options.header) };
  }
  if (options.url !== undefined) throw addFlagForOtherTransport({ flag: "url" });
  if (options.header?.length) throw addFlagForOtherTransport({ flag: "header" });
  const command = afterTerminator || rest.length !== 1 ? [...rest] : splitCommandLine(rest[0] as string);
  const [program, ...args] = command;
  if (program === undefined) throw addCommandMissing();
  if (isUrl(program)) throw addUrlAsCommand({ program });
  return {
    transport: "stdio",
    command: program,
    args,
    env: envPairs(options.env),
    cwd: options.cwd,
  };
}
