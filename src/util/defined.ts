/**
 * The entries of `record` whose value is defined: optional fields stay absent instead of holding
 * `undefined` (which would show in JSON output and in `key in` checks).
 */
export function definedOnly<T extends object>(record: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) if (value !== undefined) result[key] = value;
  return result as { [K in keyof T]?: Exclude<T[K], undefined> };
}
