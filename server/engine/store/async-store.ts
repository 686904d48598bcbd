import type { Async } from './surface';

/**
 * A synchronous store seen through its async surface (`Async<T>`): every method answers a promise
 * (a throw becomes a rejection), so a service written once against `Async<…Store>` runs on SQLite's
 * stores and on the team server's PostgreSQL ones alike. The methods are bound once, here; a call
 * costs one promise, not a lookup.
 */
export function asyncStore<T extends object>(store: T): Async<T> {
  const out: Record<string, unknown> = {};
  for (let proto: object | null = Object.getPrototypeOf(store); proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
    for (const name of Object.getOwnPropertyNames(proto)) {
      if (name === 'constructor' || name in out) continue;
      const value = (store as Record<string, unknown>)[name];
      if (typeof value !== 'function') continue;
      const method = value as (...args: unknown[]) => unknown;
      out[name] = (...args: unknown[]) => {
        try {
          return Promise.resolve(method.apply(store, args));
        } catch (error) {
          return Promise.reject(error);
        }
      };
    }
  }
  return out as Async<T>;
}
