/**
 * Cuts text to at most `maxChars` characters, the marker included, so the limit is a hard budget for
 * the LLM's context. The marker says how many characters were dropped.
 */
export function truncateText(text: string, maxChars: number): { text: string; droppedChars: number } {
  if (maxChars <= 0 || text.length <= maxChars) return { text, droppedChars: 0 };
  // The marker's length depends on the number it carries; size it for the worst case first.
  const markerFor = (dropped: number) => `\n[... truncated: ${dropped} more characters]`;
  let keep = Math.max(0, maxChars - markerFor(text.length).length);
  // Do not split a surrogate pair.
  const code = text.charCodeAt(keep - 1);
  if (keep > 0 && code >= 0xd800 && code <= 0xdbff) keep--;
  const dropped = text.length - keep;
  const marker = markerFor(dropped);
  if (keep === 0) return { text: marker.slice(0, maxChars), droppedChars: text.length };
  return { text: text.slice(0, keep) + marker, droppedChars: dropped };
}
