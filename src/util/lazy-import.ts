import { moduleLoadFailed } from "../errors/module-errors.js";

/**
 * A module loaded on its first use, once: the library's entry hands out functions whose code (and the
 * SDK, zod and the rest below it) loads only when one is called, so `import "mcp-bridge"` costs little
 * more than the error classes. A failed load is a MODULE_LOAD_FAILED error naming the part, and the
 * next call tries again (a transient failure, such as too many open files, is not remembered).
 */
export function lazyImport<T>(part: string, load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () => {
    loading ??= load().catch((cause: unknown) => {
      loading = undefined;
      const detail = cause instanceof Error ? cause.message : String(cause);
      throw moduleLoadFailed({ part, detail, cause });
    });
    return loading;
  };
}
