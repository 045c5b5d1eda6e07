/**
 * The entries of `record` whose value is defined: optional fields stay absent instead of holding
 * `undefined` (which would show in JSON output and in `key in` checks).
 */
export function definedOnly<T extends object>(record: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) if (value !== undefined) result[key] = value;
  return result as { [K in keyof T]?: Exclude<T[K], undefined> };
}

/**
 * `record` without its `undefined` entries, typed as given: for building a value with plain
 * `{ x }` literals and dropping the absent ones once, where absence shows (JSON output, wire
 * messages, `key in` checks, strict equality against stored values).
 */
export function omitUndefined<T extends object>(record: T): T {
  const result: Record<PropertyKey, unknown> = {};
  // Symbol keys too (a definition's VALUES_FROM_ENV), which Object.entries would lose.
  for (const key of Reflect.ownKeys(record)) {
    if (!Object.prototype.propertyIsEnumerable.call(record, key)) continue;
    const value = (record as Record<PropertyKey, unknown>)[key];
    if (value !== undefined) result[key] = value;
  }
  return result as T;
}
