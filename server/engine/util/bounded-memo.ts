/**
 * A function's answers kept by their text argument, at most `limit` of them: past that the memo starts over
 * (code repeats its identifiers, so the answers made since are the ones that come again).
 */
export function boundedMemo<T>(limit: number, make: (key: string) => T): (key: string) => T {
  let memo = new Map<string, T>();
  return (key) => {
    const known = memo.get(key);
    if (known !== undefined) return known;
    const made = make(key);
    if (memo.size >= limit) memo = new Map();
    memo.set(key, made);
    return made;
  };
}
