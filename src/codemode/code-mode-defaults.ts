import { CODE_MODE_LIMITS } from "./limits.js";

/**
 * Code mode's defaults in one table: its meta-tools' search and describe bounds, and the three sizes
 * of what a program's results may be on their way to the model (the per-execution limits, CPU and
 * memory among them, are CODE_MODE_LIMITS, referred to here, not restated).
 */
export const CODE_MODE_DEFAULTS = {
  /**
   * Tools one `search_tools` returns unless asked: more than the library's 5 (DEFAULT_SEARCH_LIMIT),
   * as it has been since code mode came (issue 29): a program often combines several tools.
   */
  searchLimit: 8,
  /** The most a `search_tools` call may ask for. */
  maxSearchLimit: 30,
  /** The most tools one `describe_tools` call describes. */
  maxDescribed: 30,
  /**
   * How long a meta-tool waits for servers still connecting before it reads the catalog: a model that
   * searches or runs a program just after start would otherwise find tools missing (no `list_changed`
   * reaches a program), but a server that hangs at its handshake must not hold every call up.
   */
  catalogWaitMs: 5_000,
  results: {
    /**
     * Characters of one tool result's text a program receives: 1 MiB (1,048,576), cut with the bridge's
     * marker past it, on every transport. Far above what a model reads (the program is there to read a
     * large result so the model does not), and the size at which the stdio transport already caps the
     * strings of an oversized message. Not more: a result crosses three heaps (the host's, the worker's
     * and the guest's, where it is parsed again), up to 4 calls of each of up to 4 programs at once, and
     * a program's whole memory is 64 MiB by default; 10 million characters (up to 20 MB of UTF-16, then
     * parsed) would take most of it and multiply the host's memory by the calls in flight.
     */
    callResultChars: 1024 * 1024,
    /** Characters the program may print plus return (the sandbox's output limit). */
    outputChars: CODE_MODE_LIMITS.maxOutputChars,
    /** Characters of `execute_code`'s answer the model reads; the rest is cut with a marker. */
    answerChars: 20_000,
  },
} as const;
