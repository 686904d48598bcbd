import { storageConformance } from './storage-conformance';
import { openSqliteStorage } from '../../server/engine/store/storage';
import { TrigramBacklog } from '../../server/engine/store/files-store';
import { silentLogger } from '../../server/engine/log';
import { tempDir } from '../helpers/engine';

// A fresh database file per case, migrated from nothing, as the engine opens it.
storageConformance('SQLite', () => {
  const storage = openSqliteStorage(tempDir('loupe-storage-'), silentLogger);
  const backlog = new TrigramBacklog(storage.db);
  return Object.assign(storage, { settle: () => { while (!backlog.fillTrigram(4000)) { /* next segment */ } } });
});
