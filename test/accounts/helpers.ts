import type { TestApp } from '../helpers/engine';
import { newId } from '../../server/engine/util/ids';

/** A second user made directly in the store, with a known active key (auth flows have their own tests). */
export function addUser(t: TestApp, opts: { plan?: string; credits?: number; email?: string; emailProven?: boolean } = {}) {
  const userId = newId();
  t.engine.accounts.store.insertUser({ id: userId, email: opts.email ?? `${userId}@example.test`, display_name: null, plan: opts.plan ?? 'FREE', is_owner: 0 });
  if (opts.credits !== undefined) t.engine.accounts.store.setCreditLimit(userId, opts.credits);
  if (opts.emailProven) t.engine.accounts.store.markEmailProven(userId);
  const key = newId();
  const keyId = t.engine.accounts.addKey(userId, key, 'active');
  const as = (method: string, url: string, body?: unknown, headers: Record<string, string> = {}) => t.call(method, url, body, { 'x-api-key': key, ...headers });
  return { userId, key, keyId, as };
}
