import type { StatsRange } from '../accounts/stats';
import type { Answer, Caller } from './call';
import { metered } from './metering';
import type { EngineParts } from './parts';

/** Usage, daily activity and languages of the caller (free). */
export class StatsOperations {
  constructor(private readonly e: EngineParts) {}

  usage(caller: Caller, q: { range: StatsRange }) {
    return metered(this.e.accounts, caller, { operation: 'stats.usage', cost: 0 }, (meter) => meter.answer(this.e.stats.usage(caller.userId, q.range)));
  }

  activity(caller: Caller, q: { range: StatsRange }) {
    return metered(this.e.accounts, caller, { operation: 'stats.activity', cost: 0 }, (meter) => meter.answer(this.e.stats.activity(caller.userId, q.range)));
  }

  languages(caller: Caller, q: { range?: StatsRange }): Promise<Answer<ReturnType<EngineParts['stats']['languages']>>> {
    return metered(this.e.accounts, caller, { operation: 'stats.languages', cost: 0 }, (meter) => meter.answer(this.e.stats.languages(caller.userId, q.range)));
  }
}
