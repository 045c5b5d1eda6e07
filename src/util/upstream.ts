/**
 * What an upstream server sent, kept beside the library's own shape of it (a tool entry, a converted
 * result, a resource or prompt entry) without adding a field to that shape: library users get what
 * they always got, and a gateway that re-serves the catalog can forward the original field for field
 * (`_meta`, `icons`, `execution`, vendor keys the library does not model).
 */
const originals = new WeakMap<object, unknown>();

/** Remembers `original` as what the upstream sent for `shaped`; nothing when there is none. */
export function keepUpstream<T extends object>(shaped: T, original: unknown): T {
  if (original !== undefined && original !== null) originals.set(shaped, original);
  return shaped;
}

/** What the upstream sent for `shaped`, when the library kept it (see keepUpstream). */
export function upstreamOf<T>(shaped: object): T | undefined {
  return originals.get(shaped) as T | undefined;
}
