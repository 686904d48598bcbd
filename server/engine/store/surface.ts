/**
 * The public members of a store class, as an interface: what the engine programs against. Each
 * store file exports its SQLite class (`SqliteXStore`) and this interface under the plain name
 * (`XStore`), so the two cannot drift and a second backend implements the plain one (storage.ts).
 */
export type Surface<T> = { [K in keyof T]: T[K] };
