import type { ConfigWarning } from "./model.js";

/** Thrown inside entry normalization; becomes a warning (and a skipped entry) naming server and field. */
export class EntryProblem extends Error {
  constructor(
    readonly field: string,
    message: string,
    readonly kind: ConfigWarning["kind"] = "invalid-entry",
  ) {
    super(message);
  }
}
