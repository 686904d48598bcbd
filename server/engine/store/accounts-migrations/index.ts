import type { Migration } from '../migrations';
import * as accounts from './001-accounts';
import * as ledgerPeriods from './002-ledger-periods';
import * as githubTokens from './003-github-tokens';
import * as emailProven from './004-email-proven';

/**
 * Numbered migrations of the accounts database (DATA_DIR/accounts.db), a sequence of its own. Never
 * edit a released one: add the next number.
 */
export const ACCOUNTS_MIGRATIONS: Migration[] = [
  { version: 1, name: 'accounts', sql: accounts.sql },
  { version: 2, name: 'ledger-periods', sql: ledgerPeriods.sql },
  { version: 3, name: 'github-tokens', sql: githubTokens.sql },
  { version: 4, name: 'email-proven', sql: emailProven.sql },
];
