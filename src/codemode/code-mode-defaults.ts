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
     * Characters of one tool result a program receives: far above what a model reads (the program is
     * there to read a large result so the model does not), bounded so one call cannot fill the host.
     */
    callResultChars: 10_000_000,
    /** Characters the program may print plus return (the sandbox's output limit). */
    outputChars: CODE_MODE_LIMITS.maxOutputChars,
    /** Characters of `execute_code`'s answer the model reads; the rest is cut with a marker. */
    answerChars: 20_000,
  },
} as const;
