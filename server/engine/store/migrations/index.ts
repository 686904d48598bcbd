import * as init from './001-init';
import * as search from './002-search';
import * as analysis from './004-analysis';
import * as accounts from './003-accounts';
import * as a2aTasks from './005-a2a-tasks';
import * as creditTotals from './010-credit-totals';
import * as historyConversationIndex from './011-history-conversation-index';
import * as skippedFiles from './012-skipped-files';
import * as graphUnits from './013-graph-units';
import * as splitAccounts from './014-split-accounts';
import * as trigramBacklog from './015-trigram-backlog';
import * as ftsBacklog from './016-fts-backlog';
import * as walkCatalog from './017-walk-catalog';
import * as filesFingerprint from './018-files-fingerprint';
import * as modelTail from './019-model-tail';
import * as generatorBanners from './020-generator-banners';
import * as inFileTests from './021-in-file-tests';
import * as parseAgain from './022-parse-again';
import * as parseCodeAgain from './023-parse-code-again';
import * as scriptImports from './024-script-imports';
import * as parseAgainNuxtNative from './025-parse-again-nuxt-native';
import * as bundlerImports from './026-bundler-imports';
import * as trigramPostings from './027-trigram-postings';
import * as readLockFiles from './028-read-lock-files';
import * as modelData from './029-model-data';
import * as typesAndKitOutDir from './030-types-and-kit-out-dir';
import * as pythonMissingSubmodules from './031-python-missing-submodules';
import * as rubyRequirePaths from './032-ruby-require-paths';
import * as javaSourceRoots from './033-java-source-roots';
import * as cppHeaders from './034-cpp-headers';
import type { Db } from '../db';

export interface Migration {
  version: number;
  name: string;
  sql: string;
  /** Runs and commits in a transaction of its own before `sql` (idempotent; see 013). */
  before?: (db: Db) => void;
}

/**
 * Numbered migrations, applied in order inside one transaction each. Never edit a released one:
 * add the next number. (An old-schema database is kept in test/fixtures/db and opened by a test.)
 */
export const MIGRATIONS: Migration[] = [
  { version: 1, name: 'init', sql: init.sql },
  { version: 2, name: 'search', sql: search.sql },
  { version: 3, name: 'accounts', sql: accounts.sql },
  { version: 4, name: 'analysis', sql: analysis.sql },
  { version: 5, name: 'a2a-tasks', sql: a2aTasks.sql },
  { version: 10, name: 'credit-totals', sql: creditTotals.sql },
  { version: 11, name: 'history-conversation-index', sql: historyConversationIndex.sql },
  { version: 12, name: 'skipped-files', sql: skippedFiles.sql },
  { version: 13, name: 'graph-units', sql: graphUnits.sql },
  { version: 14, name: 'split-accounts', sql: splitAccounts.sql, before: splitAccounts.copy },
  { version: 15, name: 'trigram-backlog', sql: trigramBacklog.sql },
  { version: 16, name: 'fts-backlog', sql: ftsBacklog.sql },

  { version: 17, name: 'walk-catalog', sql: walkCatalog.sql },
  { version: 18, name: 'files-fingerprint', sql: filesFingerprint.sql },
  { version: 19, name: 'model-tail', sql: modelTail.sql },
  { version: 20, name: 'generator-banners', sql: generatorBanners.sql, before: generatorBanners.flag },
  { version: 21, name: 'in-file-tests', sql: inFileTests.sql, before: inFileTests.addColumn },
  { version: 22, name: 'parse-again', sql: parseAgain.sql },
  { version: 23, name: 'parse-code-again', sql: parseCodeAgain.sql },
  { version: 24, name: 'script-imports', sql: scriptImports.sql },
  { version: 25, name: 'parse-again-nuxt-native', sql: parseAgainNuxtNative.sql },
  { version: 26, name: 'bundler-imports', sql: bundlerImports.sql },
  { version: 27, name: 'trigram-postings', sql: trigramPostings.sql },
  { version: 28, name: 'read-lock-files', sql: readLockFiles.sql },
  { version: 29, name: 'model-data', sql: modelData.sql, before: modelData.moveData },
  { version: 30, name: 'types-and-kit-out-dir', sql: typesAndKitOutDir.sql },
  { version: 31, name: 'python-missing-submodules', sql: pythonMissingSubmodules.sql },
  { version: 32, name: 'ruby-require-paths', sql: rubyRequirePaths.sql },
  { version: 33, name: 'java-source-roots', sql: javaSourceRoots.sql },
  { version: 34, name: 'cpp-headers', sql: cppHeaders.sql },
];
