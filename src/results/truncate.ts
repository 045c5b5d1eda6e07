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
  // A small limit gets a shorter marker, so the budget still holds some text, not only the marker.
  const markers = [truncationMarker, shortMarker, () => "…"];
  const marker =
    markers.find((candidate, index) => {
      const room = limit - candidate(text.length).length;
      return room >= Math.min(MIN_KEPT, Math.ceil(limit / 2)) || index === markers.length - 1;
    }) ?? truncationMarker;
  let keep = Math.max(0, limit - marker(text.length).length);
  // Never split a surrogate pair: a lone half is not valid UTF-8 on the way to the model.
  const last = text.charCodeAt(keep - 1);
  if (keep > 0 && last >= 0xd800 && last <= 0xdbff) keep--;
  const dropped = text.length - keep;
  return { text: text.slice(0, keep) + marker(dropped), droppedChars: dropped };
}

/** Text a cut keeps at least (or half the limit, when that is less) before a shorter marker is used. */
const MIN_KEPT = 16;

/** The marker under a limit too small for the full one. */
function shortMarker(droppedChars: number): string {
  return `…[${droppedChars} more]`;
}
