import { createHash, randomBytes, randomUUID } from 'node:crypto';

export const newId = (): string => randomUUID();

/**
 * A time-ordered UUID (version 7, RFC 9562): 48 bits of milliseconds, then random bits. Rows keyed
 * by it are appended to their index instead of landing on a random page, so a commit of many new
 * rows writes one index page rather than one per row.
 */
export function newTimeOrderedId(now = Date.now()): string {
  const bytes = randomBytes(16);
  bytes.writeUIntBE(now, 0, 6);
  bytes[6] = (bytes[6] & 0x0f) | 0x70;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  return formatUuid(bytes);
}

const formatUuid = (bytes: Buffer): string => {
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
};

export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const isUuid = (value: string): boolean => UUID_PATTERN.test(value);

/** A name-based (v5-style) UUID: the same repository and path always get the same file id. */
export function stableUuid(namespace: string, name: string): string {
  const bytes = createHash('sha1').update(namespace).update('\0').update(name).digest().subarray(0, 16);
  bytes[6] = (bytes[6] & 0x0f) | 0x50;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  return formatUuid(bytes);
}

export const sha256 = (value: string | Buffer): string => createHash('sha256').update(value).digest('hex');

export const nowIso = (): string => new Date().toISOString();
