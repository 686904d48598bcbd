import { storageConformance } from './storage-conformance';
import { openSqliteStorage } from '../../server/engine/store/storage';
import { silentLogger } from '../../server/engine/log';
import { tempDir } from '../helpers/engine';

// A fresh database file per case, migrated from nothing, as the engine opens it.
storageConformance('SQLite', () => openSqliteStorage(tempDir('loupe-storage-'), silentLogger));
