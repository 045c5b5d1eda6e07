/**
 * Server text made safe for a log line or a terminal: C0/C1 control characters (escape sequences,
 * carriage returns, bells) become spaces and the length is capped, so a server cannot rewrite the
 * screen or flood the log.
 */
export function plainText(text: string, maxChars = 4000): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point.
  const clean = text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, " ");
  return clean.length > maxChars ? `${clean.slice(0, maxChars)}…` : clean;
}
