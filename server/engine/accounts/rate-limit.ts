import { LoupeError } from '../errors';

export interface RateRule {
  /** Requests allowed per window. */
  max: number;
  windowMs: number;
}

/**
 * A sliding-window counter per key (an email address, a client address), kept in memory: limits
 * protect this process from guessing and mail floods; a restart forgets them, which is acceptable
 * for a local server. Keys with no recent hits are dropped so memory stays bounded.
 */
export class RateLimiter {
  private readonly hits = new Map<string, number[]>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Counts a hit for every key, or throws 429 (counting nothing) when any key is over its rule. */
  hit(entries: [key: string, rule: RateRule][]): void {
    const t = this.now();
    let wait = 0;
    for (const [key, rule] of entries) {
      const recent = (this.hits.get(key) ?? []).filter((at) => at > t - rule.windowMs);
      this.hits.set(key, recent);
      if (recent.length >= rule.max) wait = Math.max(wait, recent[0] + rule.windowMs - t);
    }
    if (wait > 0) {
      const seconds = Math.max(1, Math.ceil(wait / 1000));
      throw new LoupeError('RATE_LIMITED', `too many requests; retry in ${seconds} s`, { retry_after: seconds }, { 'Retry-After': String(seconds) });
    }
    for (const [key] of entries) this.hits.get(key)!.push(t);
    if (this.hits.size > 10_000) this.prune(t);
  }

  private prune(t: number): void {
    for (const [key, times] of this.hits) if (!times.length || times[times.length - 1] < t - 3_600_000) this.hits.delete(key);
  }
}
