/**
 * The text of a file that starts with a UTF-16 byte-order mark, decoded (the mark dropped, broken
 * sequences as U+FFFD), or null for any other file. ripgrep transcodes such files to UTF-8 before
 * searching them, so the indexer and grep read them the same way; UTF-16 without a mark is binary.
 */
export function utf16Text(bytes: Buffer): string | null {
  if (bytes.length < 2) return null;
  const encoding = bytes[0] === 0xff && bytes[1] === 0xfe ? 'utf-16le' : bytes[0] === 0xfe && bytes[1] === 0xff ? 'utf-16be' : null;
  return encoding ? new TextDecoder(encoding).decode(bytes) : null;
}

/** A PascalCase or camelCase name as a template may also write it: `HelloWorld` → `hello-world`. */
export const kebabCase = (name: string): string => name.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();
