import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { LoupeError } from '../errors';

/** Documented in README and the OpenAPI description of authenticate. */
export const MIN_PASSWORD_LENGTH = 10;
export const MAX_PASSWORD_LENGTH = 1024;

// N=2^15 costs ~32 MiB and ~50 ms here: slow for guessing, fine for a sign-in.
const PARAMS = { N: 32768, r: 8, p: 1 };
const KEY_LENGTH = 32;

function derive(password: string, salt: Buffer, params: { N: number; r: number; p: number }): Promise<Buffer> {
  const options: ScryptOptions = { ...params, maxmem: 128 * params.N * params.r * 2 };
  return new Promise((resolve, reject) => scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, options, (e, key) => (e ? reject(e) : resolve(key))));
}

/** Checks a new password against the documented rules; the message never contains the password. */
export function checkNewPassword(password: string, field: string): void {
  const length = [...password].length;
  if (length < MIN_PASSWORD_LENGTH) throw new LoupeError('VALIDATION_FAILED', `${field}: must be at least ${MIN_PASSWORD_LENGTH} characters`, { field });
  if (length > MAX_PASSWORD_LENGTH) throw new LoupeError('VALIDATION_FAILED', `${field}: must be at most ${MAX_PASSWORD_LENGTH} characters`, { field });
}

/** `scrypt$N$r$p$salt$hash` (base64url): the parameters travel with the hash so they can be raised later. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, PARAMS);
  return `scrypt$${PARAMS.N}$${PARAMS.r}$${PARAMS.p}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

/** A fixed hash to compare against when the account does not exist, so timing reveals nothing. */
let decoy: Promise<string> | null = null;

export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  if (!stored) {
    decoy ??= hashPassword(randomBytes(16).toString('hex'));
    await verifyPassword(password, await decoy);
    return false;
  }
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const actual = await derive(password, Buffer.from(salt, 'base64url'), { N: Number(n), r: Number(r), p: Number(p) });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
