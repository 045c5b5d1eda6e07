import type { GuardrailCheck } from "../config/guardrail-settings.js";

/**
 * The text checks of the guardrails (pure): hidden text and instruction-like text, found and masked
 * in one string. Secrets are found by the log redaction's own detector (util/redact.ts, with the
 * config's secret values), so the guardrails and the logs know the same credentials.
 *
 * Tool results are hostile input, so every pattern here is linear: a match may begin only at a
 * literal word, and each repeat is one character class followed by something outside it.
 */

/**
 * Hidden text: Unicode tag characters (U+E0000–E007F, an invisible copy of ASCII, the usual carrier of
 * "ASCII smuggling"), the bidirectional embeddings, overrides and isolates (U+202A–202E,
 * U+2066–2069, which reorder what a reader sees), and runs of two or more zero-width characters or
 * supplementary variation selectors (U+E0100–E01EF). A single zero-width joiner or non-joiner is
 * ordinary (emoji sequences, Indic scripts, Persian), as is one variation selector after an
 * ideograph, so only runs are taken for hiding.
 */
const HIDDEN =
  /[\u{E0000}-\u{E007F}\u202A-\u202E\u2066-\u2069]|(?:[\u200B-\u200D\u2060\u180E\uFEFF]|[\u{E0100}-\u{E01EF}]){2,}/gu;

/**
 * Instruction-like text: the phrases prompt injections use to speak to the model rather than inform
 * it. A heuristic, documented in docs/security.md#guardrails: it flags, it never proves; a finding is
 * recorded and (with `mask`) marked in place, never removed.
 */
const INSTRUCTION_PHRASES: readonly string[] = [
  String.raw`\b(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+|the\s+|your\s+|of\s+)*(?:previous|prior|above|earlier|preceding|system|original)\s+(?:instructions?|prompts?|messages?|rules?|directions?|context)`,
  String.raw`\byou\s+(?:are\s+now|must\s+now|will\s+now)\b`,
  String.raw`<\/?(?:important|system|instructions?|admin|secret)>`,
  String.raw`\b(?:do\s+not|don't|never)\s+(?:tell|inform|notify|alert)\s+the\s+user`,
  String.raw`\b(?:before|after)\s+(?:using|calling)\s+(?:this|any|the)\s+tool\s*,?\s+(?:you\s+)?(?:must|should|first|always)`,
  String.raw`\bnew\s+instructions?\s*:`,
  String.raw`\b(?:reveal|print|output|send)\s+(?:your|the)\s+system\s+prompt`,
];
const INSTRUCTIONS = new RegExp(INSTRUCTION_PHRASES.join("|"), "gi");

/**
 * A quick test for text the instruction patterns could match: one word each of them must contain
 * (most text has none of these, and this is a fraction of the patterns' cost).
 */
const INSTRUCTION_HINT =
  /ignore|disregard|forget|override|you\s|<\/?[a-z]+>|the\s+user|tool|instruction|system\s+prompt/i;

export interface TextFindings {
  hiddenText: boolean;
  instructions: boolean;
}

export function hasHiddenText(text: string): boolean {
  HIDDEN.lastIndex = 0;
  const found = HIDDEN.test(text);
  HIDDEN.lastIndex = 0;
  return found;
}

export function hasInstructions(text: string): boolean {
  if (!INSTRUCTION_HINT.test(text)) return false;
  INSTRUCTIONS.lastIndex = 0;
  const found = INSTRUCTIONS.test(text);
  INSTRUCTIONS.lastIndex = 0;
  return found;
}

/** Hidden characters removed: masking invisible text is taking it out (the audit records it was there). */
export function maskHiddenText(text: string): string {
  return text.replace(HIDDEN, "");
}

/** Each instruction-like phrase marked where it stands, so a reader sees it was flagged; nothing removed. */
export function markInstructions(text: string): string {
  return text.replace(INSTRUCTIONS, (phrase) => `[flagged by mcp-bridge: instruction-like text] ${phrase}`);
}

/** The hidden characters of a text spelled out for a person: tag characters as the ASCII they encode. */
export function revealHiddenText(text: string): string {
  let out = "";
  for (const char of text) {
    const code = char.codePointAt(0) as number;
    if (code >= 0xe0020 && code <= 0xe007e) out += String.fromCodePoint(code - 0xe0000);
  }
  return out;
}

/** The checks a kind of value goes through. */
export const CHECKS_OF: Readonly<Record<"arguments" | "result" | "description", readonly GuardrailCheck[]>> =
  {
    arguments: ["secrets"],
    result: ["secrets", "hiddenText", "instructions"],
    description: ["hiddenText", "instructions"],
  };
