import type { EngineParts } from './parts';

/** The machine's owner: the account the CLI and the editor act as, and the key they print or keep. */
export class OwnerOperations {
  constructor(private readonly e: EngineParts) {}

  /**
   * Makes sure the owner exists with a usable key. With `seedKey` (LOUPE_API_KEY, the editor's stored
   * key) that key is the owner's; otherwise a key is created when the owner has none, and returned
   * in plaintext this once (only its hash is stored). `keyLater` (the editor, whose key arrives
   * after start-up): without a seed no key is minted; the owner has none until the seed comes.
   */
  async ensure(seedKey?: string, options: { keyLater?: boolean } = {}): Promise<{ userId: string; createdKey: string | null }> {
    return this.e.accounts.ensureOwnerAsync(seedKey, options);
  }

  /** Adds an active key for the owner (a replacement when the plaintext kept outside was lost). */
  async addKey(userId: string, key: string): Promise<void> {
    await this.e.accounts.addKeyAsync(userId, key, 'active');
  }
}
