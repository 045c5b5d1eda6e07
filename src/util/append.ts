/**
 * Appends `items` to `target` in place. Not `target.push(...items)`: that passes every item as an
 * argument, and past about 120,000 of them (a big generated config, a server's huge list page) it
 * throws "Maximum call stack size exceeded" instead of appending.
 */
export function appendAll<T>(target: T[], items: Iterable<T>): void {
  for (const item of items) target.push(item);
}
