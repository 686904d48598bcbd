import type { PgMigration } from '../migrate';
import * as accounts from './001-accounts';

/**
 * The team server's numbered PostgreSQL migrations, one sequence for the one database (migrate.ts
 * applies the pending ones under an advisory lock). Never edit a released one: add the next number.
 * Versions 1–99 are the account side (users, keys, ledger, history, A2A tasks); 100 and up are the
 * index side (repositories, files, search, analysis, research, vectors), listed after these.
 */
export const PG_ACCOUNT_MIGRATIONS: PgMigration[] = [
  { version: 1, name: 'accounts', sql: accounts.sql },
];

/** Every migration, account side then index side (the index side's list joins here when it lands). */
export const PG_MIGRATIONS: PgMigration[] = [
  ...PG_ACCOUNT_MIGRATIONS,
];
