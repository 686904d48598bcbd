import type { EngineParts } from './parts';

/** The machine's owner: the account the CLI and the editor act as, and the key they print or keep. */
export class OwnerOperations {
  constructor(private readonly e: EngineParts) {}

  /**
   * Makes sure the owner exists with a usable key. With `seedKey` (LOUPE_API_KEY, the editor's stored
   * key) that key is the owner's; otherwise a key is created when the owner has none, and returned
   * in plaintext this once (only its hash is stored).
   */
  async ensure(seedKey?: string): Promise<{ userId: string; createdKey: string | null }> {
    return this.e.accounts.ensureOwnerAsync(seedKey);
  }

  /** Adds an active key for the owner (a replacement when the plaintext kept outside was lost). */
  async addKey(userId: string, key: string): Promise<void> {
    await this.e.accounts.addKeyAsync(userId, key, 'active');
  }
}
