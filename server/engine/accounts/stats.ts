import type { Accounts } from './accounts';
import type { HistoryStore } from '../store/history-store';
import { sq, type Either } from '../store/account-side';

export type StatsRange = '7d' | '30d' | '90d';
const DAY = 86_400_000;
const MINUTE = 60_000;
const daysOf = (range: StatsRange) => Number(range.slice(0, -1));

/**
 * Usage statistics from the history (queries) and the ledger (credits). `usage` is a rolling window
 * (now - N days, from a whole minute);
 * `activity` counts N whole UTC days ending today, every day present (zero days included).
 * Account-side work (store/account-side.ts): the plain methods are synchronous (SQLite only), the
 * `…Async` ones run on both backends.
 */
export class Stats {
  constructor(
    private readonly history: Either<HistoryStore>,
    private readonly accounts: Accounts,
    private readonly now: () => number = Date.now,
    /** Where the files are (the index's database): languages are counted there, whatever holds the accounts. */
    private readonly index: Either<Pick<HistoryStore, 'languages'>> = history,
  ) {}

  usage(userId: string, range: StatsRange) {
    return this.accounts.side.runSync(() => this.usageWork(userId, range));
  }

  usageAsync(userId: string, range: StatsRange) {
    return this.accounts.side.run(() => this.usageWork(userId, range));
  }

  activity(userId: string, range: StatsRange) {
    return this.accounts.side.runSync(() => this.activityWork(userId, range));
  }

  activityAsync(userId: string, range: StatsRange) {
    return this.accounts.side.run(() => this.activityWork(userId, range));
  }

  languages(userId: string, range?: StatsRange) {
    return this.accounts.side.runSync(() => this.languagesWork(userId, range));
  }

  languagesAsync(userId: string, range?: StatsRange) {
    return this.accounts.side.run(() => this.languagesWork(userId, range));
  }

  private *usageWork(userId: string, range: StatsRange) {
    const to = new Date(this.now());
    // From a whole minute: the ledger keeps charges per minute, so the window holds whole rows.
    const from = new Date(Math.floor((to.getTime() - daysOf(range) * DAY) / MINUTE) * MINUTE);
    const byCategory = yield* sq(this.history.usageByCategory(userId, from.toISOString()));
    const byOperation = yield* sq(this.accounts.side.stores.accounts.chargesByOperation(userId, from.toISOString()));
    const user = yield* sq(this.accounts.side.stores.accounts.user(userId));
    const meta = this.accounts.usage(user?.plan ?? 'FREE', yield* this.accounts.credits.balanceWork(userId));
    return {
      range, from: from.toISOString(), to: to.toISOString(),
      total_queries: byCategory.reduce((n, c) => n + c.calls, 0),
      credits_used: byOperation.reduce((n, c) => n + c.credits, 0),
      credits_remaining: meta.credits_remaining, tier: meta.tier,
      by_category: byCategory.map((c) => ({ category: c.category, queries: c.calls, credits: c.credits, duration_ms: c.duration_ms })),
      by_operation: byOperation.map((o) => ({ operation: o.operation, calls: o.calls, credits: o.credits })),
    };
  }

  private *activityWork(userId: string, range: StatsRange) {
    const days = daysOf(range);
    const today = Math.floor(this.now() / DAY) * DAY;
    const first = today - (days - 1) * DAY;
    const since = new Date(first).toISOString();
    // Queries are the history's rows; credits are the ledger's, which also holds calls that write no
    // history row (listings, polling).
    const queries = new Map((yield* sq(this.history.perDay(userId, since))).map((d) => [d.day, d.calls]));
    const credits = new Map((yield* sq(this.accounts.side.stores.accounts.chargesPerDay(userId, since))).map((d) => [d.day, d.credits]));
    const out = Array.from({ length: days }, (_, i) => {
      const date = new Date(first + i * DAY).toISOString().slice(0, 10);
      return { date, queries: queries.get(date) ?? 0, credits: credits.get(date) ?? 0 };
    });
    return { range, from: out[0].date, to: out[out.length - 1].date, total_queries: out.reduce((n, d) => n + d.queries, 0), days: out };
  }

  private *languagesWork(userId: string, range?: StatsRange) {
    const since = range ? new Date(this.now() - daysOf(range) * DAY).toISOString() : undefined;
    const rows = yield* sq(this.index.languages(userId, since));
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
