import type { StatsRange } from '../accounts/stats';
import type { Answer, Caller } from './call';
import { metered } from './metering';
import type { EngineParts } from './parts';

/** Usage, daily activity and languages of the caller (free). */
export class StatsOperations {
  constructor(private readonly e: EngineParts) {}

  usage(caller: Caller, q: { range: StatsRange }) {
    return metered(this.e.accounts, caller, { operation: 'stats.usage', cost: 0 }, async (meter) => meter.answer(await this.e.stats.usageAsync(caller.userId, q.range)));
  }

  activity(caller: Caller, q: { range: StatsRange }) {
    return metered(this.e.accounts, caller, { operation: 'stats.activity', cost: 0 }, async (meter) => meter.answer(await this.e.stats.activityAsync(caller.userId, q.range)));
  }

  languages(caller: Caller, q: { range?: StatsRange }): Promise<Answer<Awaited<ReturnType<EngineParts['stats']['languagesAsync']>>>> {
    return metered(this.e.accounts, caller, { operation: 'stats.languages', cost: 0 }, async (meter) => meter.answer(await this.e.stats.languagesAsync(caller.userId, q.range)));
  }
}
