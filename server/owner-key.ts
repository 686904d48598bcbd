import type { Engine } from './engine/engine';
import { readOwnerKeyFile, writeOwnerKeyFile } from './engine/accounts/owner-key-file';

/**
 * The owner's key: taken from LOUPE_API_KEY when set, otherwise created on first start. The
 * database keeps only its hash; the plaintext is kept for the owner in DATA_DIR/owner-key (mode 0600)
 * so that each start can show it again, as local servers such as Jupyter do with their tokens.
 * keys/regenerate by the owner rewrites the file (the engine does), so it never holds a dead key.
 */
export function ownerKey(engine: Engine, seed: string | undefined): string | null {
  const { createdKey } = engine.accounts.ensureOwner(seed);
  if (seed) return seed.toLowerCase();
  if (createdKey) {
    writeOwnerKeyFile(engine.dataDir, createdKey);
    return createdKey;
  }
  return readOwnerKeyFile(engine.dataDir);
}
