import type { Accounts } from './accounts';
import type { HistoryStore } from '../store/history-store';

export type StatsRange = '7d' | '30d' | '90d';
const DAY = 86_400_000;
const daysOf = (range: StatsRange) => Number(range.slice(0, -1));

/**
 * Usage statistics from the history and the ledger. `usage` is a rolling window (now - N days);
 * `activity` counts N whole UTC days ending today, every day present (zero days included).
 */
export class Stats {
  constructor(private readonly history: HistoryStore, private readonly accounts: Accounts, private readonly now: () => number = Date.now) {}

  usage(userId: string, range: StatsRange) {
    const to = new Date(this.now());
    const from = new Date(to.getTime() - daysOf(range) * DAY);
    const byCategory = this.history.usageByCategory(userId, from.toISOString());
    const byOperation = this.accounts.store.chargesByOperation(userId, from.toISOString());
    const meta = this.accounts.meta(userId);
    return {
      range, from: from.toISOString(), to: to.toISOString(),
      total_queries: byCategory.reduce((n, c) => n + c.calls, 0),
      credits_used: byOperation.reduce((n, c) => n + c.credits, 0),
      credits_remaining: meta.credits_remaining, tier: meta.tier,
      by_category: byCategory.map((c) => ({ category: c.category, queries: c.calls, credits: c.credits, duration_ms: c.duration_ms })),
      by_operation: byOperation.map((o) => ({ operation: o.operation, calls: o.calls, credits: o.credits })),
    };
  }

  activity(userId: string, range: StatsRange) {
    const days = daysOf(range);
    const today = Math.floor(this.now() / DAY) * DAY;
    const first = today - (days - 1) * DAY;
    const counted = new Map(this.history.perDay(userId, new Date(first).toISOString()).map((d) => [d.day, d]));
    const out = Array.from({ length: days }, (_, i) => {
      const date = new Date(first + i * DAY).toISOString().slice(0, 10);
      const row = counted.get(date);
      return { date, queries: row?.calls ?? 0, credits: row?.credits ?? 0 };
    });
    return { range, from: out[0].date, to: out[out.length - 1].date, total_queries: out.reduce((n, d) => n + d.queries, 0), days: out };
  }

  languages(userId: string, range?: StatsRange) {
    const since = range ? new Date(this.now() - daysOf(range) * DAY).toISOString() : undefined;
    const rows = this.history.languages(userId, since);
    const total = rows.reduce((n, r) => n + r.files, 0);
    return {
      range: range ?? null, total_files: total,
      languages: rows.map((r) => ({
        language: r.language ?? 'other', files: r.files, lines: r.lines, bytes: r.bytes,
        share: total ? Math.round((r.files / total) * 10_000) / 10_000 : 0,
      })),
    };
  }
}
