/**
 * How a failure message quotes the last lines a server wrote to its stderr: always last in the message,
 * so a host that shows server output only on request (the CLI without --verbose) can cut it there.
 */
export const STDERR_HINT = " Last stderr: ";

/** The message without the server's own stderr lines (when they were quoted, see STDERR_HINT). */
export function withoutStderrHint(message: string): string {
  const at = message.indexOf(STDERR_HINT);
  return at < 0 ? message : `${message.slice(0, at)} (its stderr: run with -v)`;
}
