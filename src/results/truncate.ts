/** The line that replaces the cut part; its length is part of the budget. */
export function truncationMarker(droppedChars: number): string {
  return `\n[... truncated: ${droppedChars} more characters]`;
}

/**
 * Cuts text to at most `maxChars` UTF-16 units, the marker included, so the limit is a hard budget
 * for the LLM's context. The head is kept (tools put the answer first); the marker says how many
 * characters were dropped. A limit that is not a positive number means "no limit". O(n) at worst:
 * one slice, never a scan.
 */
export function truncateText(text: string, maxChars: number): { text: string; droppedChars: number } {
  if (!(maxChars > 0) || maxChars === Number.POSITIVE_INFINITY || text.length <= maxChars) {
    return { text, droppedChars: 0 };
  }
  const limit = Math.floor(maxChars);
  // The marker's length depends on the number it carries; the whole length is a safe upper bound.
  let keep = Math.max(0, limit - truncationMarker(text.length).length);
  // Never split a surrogate pair: a lone half is not valid UTF-8 on the way to the model.
  const last = text.charCodeAt(keep - 1);
  if (keep > 0 && last >= 0xd800 && last <= 0xdbff) keep--;
  const dropped = text.length - keep;
  const marker = truncationMarker(dropped);
  // A limit smaller than the marker itself: keep as much of the marker as fits.
  if (keep === 0) return { text: marker.trimStart().slice(0, limit), droppedChars: text.length };
  return { text: text.slice(0, keep) + marker, droppedChars: dropped };
}
