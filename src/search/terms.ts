/**
 * Text to search terms: pure functions shared by the index and the query side, so a tool and a
 * query about it always meet on the same terms.
 *
 * Tool names are identifiers (`create_issue`, `browserNavigate`, `get-file-contents`), descriptions
 * are prose, and queries are phrased as a user would ("open a pull request"). So terms are split on
 * every identifier boundary, lowercased, folded to a crude stem (plural and verb endings), and a
 * small table maps the words users say to the words tool authors write.
 */

/** Words that carry no meaning for choosing a tool. */
const STOP_WORDS = new Set(
  (
    "a an and are as at be by can do for from has have how i in into is it its me my of on or our please " +
    "should so some than that the their them then there these this those to up us use using via was we " +
    "what when where which while who will with without would you your tool tools"
  ).split(" "),
);

/**
 * Words users say and words tool authors write for the same thing. A query word expands to the other
 * words of its groups (at a lower weight, see the index), so "save a note" can find `write_file` and
 * "open a pull request" `create_pull_request`. Kept small and general: everyday tool verbs and nouns.
 */
const SYNONYM_GROUPS: readonly (readonly string[])[] = [
  ["get", "fetch", "retrieve", "obtain", "show", "view", "read", "load", "open", "display", "look"],
  ["search", "find", "query", "lookup", "seek", "locate", "grep", "match"],
  ["create", "make", "new", "add", "generate", "open", "start", "insert", "post"],
  ["write", "save", "store", "put", "record", "persist", "edit"],
  ["update", "modify", "change", "edit", "alter", "set", "patch"],
  ["delete", "remove", "erase", "drop", "destroy", "discard", "clear", "close"],
  ["list", "enumerate", "browse", "all", "show"],
  ["move", "rename", "relocate"],
  ["folder", "directory", "dir"],
  ["file", "document", "doc"],
  ["repo", "repository", "project"],
  ["pull", "pr", "merge"],
  ["issue", "bug", "ticket"],
  ["image", "picture", "photo", "screenshot", "snapshot"],
  ["page", "webpage", "website", "site", "browser", "tab"],
  ["url", "link", "address"],
  ["navigate", "visit", "go", "browse"],
  ["click", "press", "tap"],
  ["type", "enter", "fill", "input"],
  ["message", "msg", "post", "chat", "channel"],
  ["reply", "answer", "respond", "thread"],
  ["customer", "client", "user"],
  ["invoice", "bill"],
  ["payment", "charge", "pay", "price"],
  ["place", "location", "address", "geocode"],
  ["directions", "route", "distance", "travel"],
  ["comment", "note", "remark"],
  ["entity", "node", "observation"],
  ["relation", "edge", "link"],
  ["run", "execute", "launch", "invoke", "evaluate"],
  ["thought", "think", "reasoning", "step"],
  ["key", "value", "cache"],
  ["sql", "database", "table", "query"],
];

const SYNONYMS: ReadonlyMap<string, readonly string[]> = (() => {
  const map = new Map<string, Set<string>>();
  for (const group of SYNONYM_GROUPS) {
    for (const word of group) {
      const set = map.get(word) ?? new Set<string>();
      for (const other of group) if (other !== word) set.add(other);
      map.set(word, set);
    }
  }
  return new Map([...map].map(([word, set]) => [word, [...set]]));
})();

/** Splits identifiers and prose into lowercase words: `getFileContents` -> get, file, contents. */
export function words(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word.length > 0 && word.length <= 40);
}

/** A crude, deterministic stem: enough to meet "issues"/"issue", "creating"/"create", "listed"/"list". */
export function stem(word: string): string {
  if (word.length <= 3) return word;
  if (word.endsWith("ies") && word.length > 4) return `${word.slice(0, -3)}y`;
  if (word.endsWith("sses")) return word.slice(0, -2);
  if (word.endsWith("ing") && word.length > 5) return trimDouble(word.slice(0, -3));
  if (word.endsWith("ed") && word.length > 4) return trimDouble(word.slice(0, -2));
  if (word.endsWith("es") && /(ch|sh|x|z)es$/.test(word)) return word.slice(0, -2);
  if (word.endsWith("s") && !word.endsWith("ss") && !word.endsWith("us")) return word.slice(0, -1);
  return word;
}

function trimDouble(word: string): string {
  // "mapped" -> "mapp" -> "map"; "creat" (from "created"/"creating") stays and meets "create" below.
  if (word.length > 3 && word.at(-1) === word.at(-2) && !/[lsz]/.test(word.at(-1) ?? ""))
    return word.slice(0, -1);
  return word;
}

/** The canonical form a word is indexed and queried under. */
export function term(word: string): string {
  const stemmed = stem(word);
  // "create"/"creat", "update"/"updat", "delete"/"delet", "write"/"writ": fold a trailing e.
  return stemmed.length > 4 && stemmed.endsWith("e") ? stemmed.slice(0, -1) : stemmed;
}

/** The terms a query word also stands for (its synonyms), without the word's own term. */
export function relatedTerms(word: string): string[] {
  const own = term(word);
  const related = new Set<string>();
  for (const other of SYNONYMS.get(word) ?? []) {
    const t = term(other);
    if (t !== own) related.add(t);
  }
  return [...related];
}

/** Search terms of a text, stop words removed, in order (duplicates kept: they count). */
export function terms(text: string): string[] {
  return meaningfulWords(text).map(term);
}

/** The words of a text that are not stop words. */
export function meaningfulWords(text: string): string[] {
  return words(text).filter((word) => !STOP_WORDS.has(word));
}
