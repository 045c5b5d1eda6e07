import type { RE2JS } from "re2js";
import { invalidSearchPattern } from "../errors/index.js";
import type { JsonSchema, ToolDefinition } from "../registry/tool-definition.js";
import { re2js } from "../util/lazy-modules.js";
import { errorText } from "../util/text-of.js";
import { DEFAULT_SEARCH_LIMIT } from "./search-tools-input.js";
import { meaningfulWords, relatedTerms, term, terms } from "./terms.js";

/**
 * Ranked tool search over a catalog (BM25 with per-field weights, "BM25F"): a model or a host asks
 * for "the tool that does X" instead of carrying every tool definition in its context.
 *
 * Fields and weights: the tool's name counts most (authors put the action and object there), then
 * its title, the server's name, the description, and the parameters' names and descriptions. A query
 * word's synonyms count at a lower weight, so a user's phrasing meets a tool author's. A query that is
 * exactly a tool's name (exposed, original, or `server/tool`) ranks that tool first. A query written
 * `/pattern/` (or `/pattern/i`) is a regular expression over names, titles and descriptions, run by
 * RE2 (linear time): a model or server cannot stall the host with a backtracking pattern.
 */

export interface ToolSearchOptions {
  /** How many tools to return (default 5). */
  readonly limit?: number;
  /** Only tools of this server (original name). */
  readonly server?: string;
}

/** Queries longer than this are cut: a tool is found by a handful of words, not a document. */
export const MAX_QUERY_CHARS = 1000;
const MAX_QUERY_TERMS = 64;
const MAX_FIELD_CHARS = 8000;

const FIELD_WEIGHTS = {
  name: 3,
  title: 2,
  server: 1.5,
  description: 1,
  parameterNames: 1,
  parameterDescriptions: 0.5,
} as const;
const SYNONYM_WEIGHT = 0.4;
const K1 = 1.2;
const B = 0.75;

interface Document<T> {
  readonly entry: T;
  readonly length: number;
}

export class ToolSearchIndex<T extends ToolDefinition> {
  readonly #docs: Document<T>[] = [];
  /** term -> parallel arrays of document index and weighted term frequency. */
  readonly #postings = new Map<string, { docs: number[]; tf: number[] }>();
  readonly #byName = new Map<string, number>();
  readonly #averageLength: number;

  constructor(entries: readonly T[]) {
    let total = 0;
    for (const entry of entries) {
      const index = this.#docs.length;
      const weights = documentTerms(entry);
      let length = 0;
      for (const [t, tf] of weights) {
        length += tf;
        let posting = this.#postings.get(t);
        if (!posting) {
          posting = { docs: [], tf: [] };
          this.#postings.set(t, posting);
        }
        posting.docs.push(index);
        posting.tf.push(tf);
      }
      total += length;
      this.#docs.push({ entry, length });
      for (const key of [entry.name, `${entry.server}/${entry.tool}`, entry.tool]) {
        const lower = key.toLowerCase();
        if (!this.#byName.has(lower)) this.#byName.set(lower, index);
      }
    }
    this.#averageLength = this.#docs.length > 0 ? total / this.#docs.length : 1;
  }

  get size(): number {
    return this.#docs.length;
  }

  /** The best matches for `query`, best first; an empty query (or one of stop words only) finds nothing. */
  search(query: string, options: ToolSearchOptions = {}): T[] {
    const limit = Math.max(0, Math.floor(options.limit ?? DEFAULT_SEARCH_LIMIT));
    if (limit === 0) return [];
    const text = query.slice(0, MAX_QUERY_CHARS).trim();
    if (text.length === 0) return [];
    const allowed = (index: number) =>
      options.server === undefined || this.#docs[index]?.entry.server === options.server;

    const regex = /^\/(.+)\/([i]?)$/s.exec(text);
    if (regex) return this.#searchRegex(regex[1] as string, regex[2] === "i", limit, allowed);

    const scores = new Map<number, number>();
    const exact = this.#byName.get(text.toLowerCase());
    if (exact !== undefined && allowed(exact)) scores.set(exact, Number.POSITIVE_INFINITY);

    for (const [t, weight] of queryTerms(text)) {
      const posting = this.#postings.get(t);
      if (!posting) continue;
      const idf = Math.log(1 + (this.#docs.length - posting.docs.length + 0.5) / (posting.docs.length + 0.5));
      for (let i = 0; i < posting.docs.length; i++) {
        const index = posting.docs[i] as number;
        if (!allowed(index)) continue;
        const tf = posting.tf[i] as number;
        const length = (this.#docs[index] as Document<T>).length;
        const norm = tf + K1 * (1 - B + (B * length) / this.#averageLength);
        scores.set(index, (scores.get(index) ?? 0) + weight * idf * ((tf * (K1 + 1)) / norm));
      }
    }
    return [...scores]
      .sort((a, b) => b[1] - a[1] || a[0] - b[0])
      .slice(0, limit)
      .map(([index]) => (this.#docs[index] as Document<T>).entry);
  }

  /** Tools whose name, title or description the pattern matches, in catalog order. */
  #searchRegex(
    pattern: string,
    ignoreCase: boolean,
    limit: number,
    allowed: (index: number) => boolean,
  ): T[] {
    const regex = compileRegex(pattern, ignoreCase);
    const found: T[] = [];
    for (const [index, doc] of this.#docs.entries()) {
      if (found.length >= limit) break;
      if (!allowed(index)) continue;
      const { entry } = doc;
      const fields = [entry.name, `${entry.server}/${entry.tool}`, entry.title ?? "", entry.description];
      if (fields.some((field) => regex.matcher(field.slice(0, MAX_FIELD_CHARS)).find())) found.push(entry);
    }
    return found;
  }
}

function compileRegex(pattern: string, ignoreCase: boolean): RE2JS {
  try {
    const RE2 = re2js();
    return RE2.compile(pattern, ignoreCase ? RE2.CASE_INSENSITIVE : 0);
  } catch (error) {
    throw invalidSearchPattern({ pattern, reason: errorText(error) });
  }
}

/** The query's terms with their weights: its own words at 1, their synonyms at SYNONYM_WEIGHT. */
function queryTerms(text: string): Map<string, number> {
  const weights = new Map<string, number>();
  for (const word of meaningfulWords(text).slice(0, MAX_QUERY_TERMS)) {
    const own = term(word);
    weights.set(own, Math.max(weights.get(own) ?? 0, 1));
    for (const related of relatedTerms(word)) {
      weights.set(related, Math.max(weights.get(related) ?? 0, SYNONYM_WEIGHT));
    }
  }
  return weights;
}

/** A tool's weighted term frequencies over its fields. */
function documentTerms(entry: ToolDefinition): Map<string, number> {
  const weights = new Map<string, number>();
  const add = (text: string | undefined, weight: number) => {
    if (!text) return;
    for (const t of terms(text.slice(0, MAX_FIELD_CHARS))) weights.set(t, (weights.get(t) ?? 0) + weight);
  };
  add(entry.tool, FIELD_WEIGHTS.name);
  add(entry.title, FIELD_WEIGHTS.title);
  add(entry.server, FIELD_WEIGHTS.server);
  add(entry.description, FIELD_WEIGHTS.description);
  for (const [name, schema] of parameters(entry.inputSchema)) {
    add(name, FIELD_WEIGHTS.parameterNames);
    add(
      typeof schema.description === "string" ? schema.description : undefined,
      FIELD_WEIGHTS.parameterDescriptions,
    );
  }
  return weights;
}

/** Top-level parameters of an input schema (nested ones rarely decide which tool a task needs). */
function parameters(schema: JsonSchema): [string, JsonSchema][] {
  const properties = schema.properties;
  if (!properties || typeof properties !== "object" || Array.isArray(properties)) return [];
  return Object.entries(properties as Record<string, unknown>)
    .slice(0, 200)
    .map(([name, value]) => [name, value && typeof value === "object" ? (value as JsonSchema) : {}]);
}
