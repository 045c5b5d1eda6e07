import { AsyncLocalStorage } from "node:async_hooks";
import type {
  OtelContext as Context,
  OtelContextManager as ContextManager,
  OpenTelemetryApi,
} from "./otel-types.js";

/**
 * The smallest OpenTelemetry context manager over AsyncLocalStorage: what makes the span of a
 * request the gateway serves the parent of the requests it sends upstream while handling it. An
 * application sets one up (the OpenTelemetry Node SDK does); the gateway CLI, an application with no
 * SDK of its own, uses this one. A library never registers it.
 */
class AsyncLocalContextManager implements ContextManager {
  readonly #storage = new AsyncLocalStorage<Context>();
  readonly #root: Context;

  constructor(root: Context) {
    this.#root = root;
  }

  active(): Context {
    return this.#storage.getStore() ?? this.#root;
  }

  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    context: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    return this.#storage.run(context, () => fn.apply(thisArg, args));
  }

  bind<T>(context: Context, target: T): T {
    if (typeof target !== "function") return target;
    const run = target as unknown as (...args: unknown[]) => unknown;
    return ((...args: unknown[]) => this.with(context, () => run(...args))) as unknown as T;
  }

  enable(): this {
    return this;
  }

  disable(): this {
    this.#storage.disable();
    return this;
  }
}

/**
 * Registers the AsyncLocalStorage context manager unless the process has one already; true when it
 * registered it.
 */
export function ensureContextManager(api: OpenTelemetryApi): boolean {
  // The API's default manager runs `with` callbacks without ever changing the active context.
  const probe = api.createContextKey("mcp-bridge.context-probe");
  const works = api.context.with(api.ROOT_CONTEXT.setValue(probe, true), () =>
    api.context.active().getValue(probe),
  );
  if (works === true) return false;
  return api.context.setGlobalContextManager(new AsyncLocalContextManager(api.ROOT_CONTEXT));
}
