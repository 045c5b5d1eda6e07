import { moduleLoadFailed, optionalModuleMissing } from "../errors/module-errors.js";

/**
 * A module loaded on its first use, once: the library's entry hands out functions whose code (and the
 * SDK, zod and the rest below it) loads only when one is called, so `import "mcp-bridge"` costs little
 * more than the error classes. A failed load is a MODULE_LOAD_FAILED error naming the part, and the
 * next call tries again (a transient failure, such as too many open files, is not remembered).
 */
export function lazyImport<T>(part: string, load: () => Promise<T>): () => Promise<T> {
  return loadOnce(load, (detail, cause) => moduleLoadFailed({ part, detail, cause }));
}

/**
 * An optional peer dependency (`pkg`), loaded on first use by `feature`: hosts that never use the
 * feature need not install it. A failed load is a MODULE_LOAD_FAILED error saying what to install, and
 * the next call tries again (the package may have been installed meanwhile).
 */
export function lazyPeer<T>(feature: string, pkg: string, load: () => Promise<T>): () => Promise<T> {
  return loadOnce(load, (detail, cause) => optionalModuleMissing({ feature, pkg, detail, cause }));
}

function loadOnce<T>(
  load: () => Promise<T>,
  failed: (detail: string, cause: unknown) => Error,
): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () => {
    loading ??= load().catch((cause: unknown) => {
      loading = undefined;
      throw failed(cause instanceof Error ? cause.message : String(cause), cause);
    });
    return loading;
  };
}
