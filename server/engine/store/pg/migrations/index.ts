import type { PgMigration } from '../migrate';
import * as accounts from './001-accounts';
import { PG_INDEX_MIGRATIONS } from '../index-migrations';

/**
 * The team server's numbered PostgreSQL migrations, one sequence for the one database (migrate.ts
 * applies the pending ones under an advisory lock). Never edit a released one: add the next number.
 * Versions 1–99 are the account side (users, keys, ledger, history, A2A tasks); 100 and up are the
 * index side (repositories, files, search, analysis, research, vectors), listed after these.
 */
export const PG_ACCOUNT_MIGRATIONS: PgMigration[] = [
  { version: 1, name: 'accounts', sql: accounts.sql },
];

/** Every migration, account side then index side. */
export const PG_MIGRATIONS: PgMigration[] = [
  ...PG_ACCOUNT_MIGRATIONS,
  ...PG_INDEX_MIGRATIONS,
];
