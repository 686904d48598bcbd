import fs from 'node:fs';
import path from 'node:path';
import type { Engine } from './engine/engine';

/**
 * The owner's key: taken from LOUPE_API_KEY when set, otherwise created on first start. The
 * database keeps only its hash; the plaintext is kept for the owner in DATA_DIR/owner-key (mode 0600)
 * so that each start can show it again, as local servers such as Jupyter do with their tokens.
 */
export function ownerKey(engine: Engine, seed: string | undefined): string | null {
  const file = path.join(engine.dataDir, 'owner-key');
  const { createdKey } = engine.accounts.ensureOwner(seed);
  if (seed) return seed.toLowerCase();
  if (createdKey) {
    fs.writeFileSync(file, `${createdKey}\n`, { mode: 0o600 });
    return createdKey;
  }
  try {
    return fs.readFileSync(file, 'utf8').trim() || null;
  } catch {
    return null;
  }
}
