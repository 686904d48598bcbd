import { randomUUID } from 'node:crypto';
import type * as vscode from 'vscode';

const SECRET = 'loupe.ownerKey';

/**
 * The owner's API key lives in VS Code's SecretStorage (the OS keychain where there is one); the
 * first run makes one. The server stores only its hash.
 */
export async function ownerKey(secrets: vscode.SecretStorage): Promise<string> {
  const existing = await secrets.get(SECRET);
  if (existing && /^[0-9a-f-]{36}$/i.test(existing)) return existing;
  const key = randomUUID();
  await secrets.store(SECRET, key);
  return key;
}
