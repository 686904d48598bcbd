/**
 * COPY … FROM STDIN for the index's big tables (the team server's writes, issue 20): rows encoded in
 * PostgreSQL's COPY text format and sent as CopyData messages on a `pg` client, without a dependency
 * (the same messages pg-copy-streams sends). A bulk insert through COPY skips what an
 * `INSERT … SELECT FROM unnest($1::text[], …)` costs on both sides: the client quoting every value into
 * an array literal, the server parsing those literals back and planning a statement.
 *
 * The text format (https://www.postgresql.org/docs/current/sql-copy.html#id-1.9.3.55.9.2): a row per
 * line, fields separated by a tab, `\N` for NULL; backslash, newline, carriage return and tab inside a
 * value are written `\\`, `\n`, `\r`, `\t`. PostgreSQL's `text` cannot hold a NUL character at all
 * (neither does an INSERT take one), so a NUL in a value is stored as U+FFFD, the replacement character:
 * the one change a value undergoes (a file's text past its first 8,000 bytes may hold one, see
 * parse-file.ts; its tokens are made from the text before it is stored, so ranking is unchanged).
 */
import type pg from 'pg';
import { LoupeError } from '../../errors';

export type CopyValue = string | number | boolean | null | undefined;

const SPECIAL = /[\\\t\n\r\0]/;
const SPECIAL_ALL = /[\\\t\n\r\0]/g;
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r', '\0': '\uFFFD' };

/** A text as PostgreSQL can keep it (a NUL as U+FFFD), for the values that go as statement parameters. */
export const pgText = <T extends string | null>(text: T): T => (text !== null && text.includes('\0') ? text.replace(/\0/g, '\uFFFD') as T : text);

/** One value as a field of COPY's text format. */
export function copyField(value: CopyValue): string {
  if (value === null || value === undefined) return '\\N';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new LoupeError('INTERNAL', `COPY: ${value} is not a finite number`);
    return String(value);
  }
  if (typeof value === 'boolean') return value ? 't' : 'f';
  return SPECIAL.test(value) ? value.replace(SPECIAL_ALL, (c) => ESCAPES[c]!) : value;
}

/**
 * A `text[]` value as a field (its array literal, then escaped as any field): every element quoted,
 * so no element needs to be checked for braces, commas, spaces or the word NULL.
 */
export function copyTextArray(values: readonly string[]): string {
  if (!values.length) return '{}';
  return copyField(`{${values.map((v) => `"${v.replace(/["\\]/g, (c) => `\\${c}`)}"`).join(',')}}`);
}

/**
 * Rows in the text format, built column by column (each column an array of the same length): the
 * caller's arrays are what it already has for each column, and no row object is made.
 */
export function copyRows(columns: readonly (readonly CopyValue[])[], encoded?: readonly boolean[]): string {
  const n = columns[0]?.length ?? 0;
  for (const c of columns) if (c.length !== n) throw new LoupeError('INTERNAL', 'COPY: columns of different lengths');
  const parts: string[] = new Array(n);
  const last = columns.length - 1;
  for (let i = 0; i < n; i++) {
    let line = '';
    for (let c = 0; c <= last; c++) {
      const v = columns[c]![i];
      line += encoded?.[c] ? (v as string) : copyField(v);
      line += c === last ? '\n' : '\t';
    }
    parts[i] = line;
  }
  return parts.join('');
}

/** CopyData messages of at most this many bytes (the server takes any size; this bounds the copies made). */
const CHUNK_BYTES = 1 << 20;

/**
 * Runs `COPY … FROM STDIN` on `client` with `data` (COPY text rows, above) as its input; answers the
 * number of rows copied. A `pg` submittable: the client hands it the connection when its turn comes
 * (queries given before it go first), and the server's answers (CommandComplete, ReadyForQuery, or an
 * error) come to its handlers, as pg's own Query gets them. The statement is handed to the client at
 * once, synchronously: calls made one after another run in that order.
 */
export function copyFrom(client: pg.ClientBase, text: string, data: string): Promise<number> {
  if (!/^\s*COPY\s[\s\S]*\sFROM\s+STDIN\b/i.test(text)) throw new LoupeError('INTERNAL', `not a COPY … FROM STDIN statement: ${text.slice(0, 60)}`);
  return new Promise<number>((resolve, reject) => {
    let rows = 0;
    let settled = false;
    const submittable = {
      // The data goes right behind the statement, without waiting for the server's CopyInResponse: the
      // server reads it from the socket once in copy mode, and the caller's next work (the postings of
      // the chunks being copied) runs meanwhile. Should the statement fail before copy mode, the server
      // drops the CopyData and CopyDone that follow ("accept but ignore", per the protocol).
      submit(connection: Connection) {
        connection.query(text);
        const bytes = Buffer.from(data, 'utf8');
        for (let at = 0; at < bytes.length; at += CHUNK_BYTES) connection.sendCopyFromChunk(bytes.subarray(at, at + CHUNK_BYTES));
        connection.endCopyFrom();
      },
      handleCopyInResponse() {},
      handleCommandComplete(msg: { text?: string }) {
        const m = /^COPY (\d+)/.exec(msg.text ?? '');
        rows = m ? Number(m[1]) : 0;
      },
      handleReadyForQuery() {
        if (!settled) { settled = true; resolve(rows); }
      },
      handleError(error: Error) {
        if (!settled) { settled = true; reject(error); }
      },
      // Not sent in answer to a COPY FROM; present because the client may route them to the active query.
      handleRowDescription() {},
      handleDataRow() {},
      handleEmptyQuery() {},
      handlePortalSuspended() {},
      handleCopyData() {},
    };
    (client as unknown as { query(s: typeof submittable): unknown }).query(submittable);
  });
}

/** What of pg's Connection a submittable uses (pg/lib/connection.js). */
interface Connection {
  query(text: string): void;
  sendCopyFromChunk(chunk: Buffer): void;
  endCopyFrom(): void;
}

/** One column of a bulk insert: its name, its PostgreSQL type (for the unnest fallback) and its values. */
export interface BulkColumn { name: string; type: string; values: readonly CopyValue[] }

/**
 * Inserts rows given column by column: through COPY where the connection has it (a `PgDb`), else
 * (PGlite in tests) as one `INSERT … SELECT FROM unnest(…)`. Either way one statement, whatever the
 * number of rows; the table's defaults (identity ids) fill the columns not given.
 */
export async function bulkInsert(db: { query(text: string, values?: unknown[]): Promise<unknown>; copyFrom?(text: string, data: string): Promise<number> }, table: string, columns: readonly BulkColumn[]): Promise<void> {
  if (!columns.length || !columns[0]!.values.length) return;
  const names = columns.map((c) => c.name).join(', ');
  if (db.copyFrom) {
    await db.copyFrom(`COPY ${table} (${names}) FROM STDIN`, copyRows(columns.map((c) => c.values)));
    return;
  }
  await db.query(`INSERT INTO ${table} (${names}) SELECT * FROM unnest(${columns.map((c, i) => `$${i + 1}::${c.type}[]`).join(', ')})`,
    columns.map((c) => c.values));
}

/**
 * Statements handed to one connection one after another without waiting for each answer (pg runs
 * them in the order given): `issue(p)` keeps each promise, `done()` waits for them all and throws the
 * first failure, which is the cause (in a transaction, the statements after it fail as aborted).
 */
export class Issued {
  private readonly all: Promise<unknown>[] = [];
  private failure: { error: unknown } | null = null;

  readonly issue = <T>(p: Promise<T>): Promise<T> => {
    p.catch((error: unknown) => { this.failure ??= { error }; });
    this.all.push(p);
    return p;
  };

  /** Waits for every statement; throws the first failure, else `error` when one is given. */
  async done(error?: { error: unknown }): Promise<void> {
    await Promise.allSettled(this.all);
    const failed = this.failure ?? error;
    if (failed) throw failed.error;
  }
}
