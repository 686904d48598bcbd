import type { Db } from '../db';
import { LoupeError } from '../../errors';
import { TABLES } from '../accounts-migrations/001-accounts';

/**
 * Accounts leave the index. Until now users, keys, the ledger, history and A2A tasks lived in the
 * same file as the index, so a corrupt index moved aside took every account with it. They now live
 * in DATA_DIR/accounts.db (attached as `accounts`, created by its own first migration); this one
 * copies an older data dir's rows there and removes them from the index.
 *
 * `copy` runs and commits first (idempotent: INSERT OR IGNORE, so a process stopped after it copies
 * nothing twice), and only then `sql` drops the tables here: the rows are never in neither file.
 * `user_repos` (which user added which repository) stays with the repositories, without its
 * foreign key to users, which a table in another file cannot have.
 */
export function copy(db: Db): void {
  const attached = (db.prepare("SELECT count(*) AS n FROM pragma_database_list WHERE name = 'accounts'").get() as { n: number }).n > 0;
  // A broken invariant of ours, not of the data: INTERNAL.
  if (!attached) throw new LoupeError('INTERNAL', 'migration 14 needs the accounts database attached (open the index with openDatabase(file, log, { accountsFile }))');
  const here = new Set((db.prepare("SELECT name FROM main.sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((r) => r.name));
  for (const { name, columns } of TABLES) {
    if (!here.has(name)) continue;
    const list = columns.join(', ');
    // The ledger's totals are rebuilt by the accounts database's own trigger as its rows arrive.
    db.exec(`INSERT OR IGNORE INTO accounts.${name} (${list}) SELECT ${list} FROM main.${name}`);
  }
}

export const sql = `
CREATE TABLE main.user_repos_moved (
  user_id TEXT NOT NULL,
  repo_id TEXT NOT NULL REFERENCES repos(id) ON DELETE CASCADE,
  created_at TEXT NOT NULL,
  PRIMARY KEY (user_id, repo_id)
);
INSERT INTO main.user_repos_moved (user_id, repo_id, created_at) SELECT user_id, repo_id, created_at FROM main.user_repos;
DROP TABLE main.user_repos;
ALTER TABLE main.user_repos_moved RENAME TO user_repos;
-- Children before parents: with foreign keys on, dropping a parent first would cascade into them.
DROP TABLE IF EXISTS main.a2a_tasks;
DROP TABLE IF EXISTS main.history;
DROP TABLE IF EXISTS main.conversations;
DROP TABLE IF EXISTS main.sessions;
DROP TABLE IF EXISTS main.otp_codes;
DROP TABLE IF EXISTS main.api_keys;
DROP TABLE IF EXISTS main.credit_totals;
DROP TABLE IF EXISTS main.credit_ledger;
DROP TABLE IF EXISTS main.users;
`;
