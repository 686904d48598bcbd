/**
 * What the index stores need of a PostgreSQL connection: `PgDb` (pg-db.ts) on a server, or an
 * adapter over PGlite in tests (pgvector's SQL is tested there, since Debian 12 packages no pgvector).
 * Both give `query` and `transaction`; `sqlOf` adds typed `rows`/`one`.
 */
export type Row = Record<string, unknown>;

export interface PgConnection {
  query(text: string, values?: unknown[]): Promise<{ rows: Row[]; rowCount?: number | null }>;
  /** One transaction (nested: a savepoint) that every query made by `work` joins. */
  transaction<T>(work: () => Promise<T>): Promise<T>;
  /**
   * `COPY … FROM STDIN` with `data` in COPY's text format (pg/copy.ts), on the current transaction's
   * session; answers the rows copied. Absent (PGlite in tests), the stores insert through unnest.
   */
  copyFrom?(text: string, data: string): Promise<number>;
}

export interface PgSql extends PgConnection {
  rows<R = Row>(text: string, values?: unknown[]): Promise<R[]>;
  one<R = Row>(text: string, values?: unknown[]): Promise<R | undefined>;
}

export function sqlOf(connection: PgConnection): PgSql {
  return {
    query: (text, values) => connection.query(text, values),
    transaction: (work) => connection.transaction(work),
    copyFrom: connection.copyFrom && ((text, data) => connection.copyFrom!(text, data)),
    rows: async <R>(text: string, values?: unknown[]) => (await connection.query(text, values)).rows as R[],
    one: async <R>(text: string, values?: unknown[]) => (await connection.query(text, values)).rows[0] as R | undefined,
  };
}

/** LIKE's wildcards taken literally (escape character `\`). */
export const likeEscape = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);
