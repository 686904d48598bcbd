/**
 * The public members of a store class, as an interface: what the engine programs against. Each
 * store file exports its SQLite class (`SqliteXStore`) and this interface under the plain name
 * (`XStore`), so the two cannot drift and a second backend implements the plain one (storage.ts).
 */
export type Surface<T> = { [K in keyof T]: T[K] };

/**
 * The same surface with every method answering a promise: what a backend that must await (the team
 * server's PostgreSQL stores, store/pg/) implements. The conformance suite awaits every call, so one
 * suite checks both.
 */
export type Async<T> = {
  [K in keyof T]: T[K] extends (...args: infer A) => infer R ? (...args: A) => Promise<Awaited<R>> : T[K];
};
