/**
 * The health route's two answers, for load balancers and orchestrators (no caller, no credits, no
 * account data):
 * - **live**: the process answers requests. It reads nothing: a database outage must not make an
 *   orchestrator restart every API node (a restart cannot fix the database).
 * - **ready**: this node can serve: every database it serves from answers within the probe's time
 *   and has every migration this build knows (a newer release's extra migrations are fine: they only
 *   add). Not ready is a 503 `SERVICE_UNAVAILABLE` naming what failed, so the balancer sends the
 *   node no traffic until it recovers. A probe's underlying error is logged on a change of state,
 *   never sent: the route needs no key.
 */
import { LoupeError } from '../errors';
import type { Logger } from '../log';
import type { DatabaseHealth } from '../store/health';

export interface HealthCheck {
  name: DatabaseHealth['name'];
  status: 'pass' | 'fail';
  reachable: DatabaseHealth['reachable'];
  schema: DatabaseHealth['schema'];
  latency_ms: number;
}

export interface HealthAnswer {
  status: 'pass';
}

export interface ReadyAnswer extends HealthAnswer {
  checks: HealthCheck[];
}

export class HealthOperations {
  private lastFailure = '';

  constructor(private readonly probes: (() => Promise<DatabaseHealth>)[], private readonly log: Logger) {}

  /** Liveness: answered by the event loop alone. */
  live(): HealthAnswer {
    return { status: 'pass' };
  }

  /** Readiness: every database probed at once; throws SERVICE_UNAVAILABLE (503) when one fails. */
  async ready(): Promise<ReadyAnswer> {
    const results = await Promise.all(this.probes.map((probe) => probe()));
    const checks = results.map((r): HealthCheck => ({
      name: r.name,
      status: r.reachable === 'ok' && r.schema !== 'behind' ? 'pass' : 'fail',
      reachable: r.reachable,
      schema: r.schema,
      latency_ms: Math.round(r.latencyMs * 10) / 10,
    }));
    const failed = results.filter((_, i) => checks[i]!.status === 'fail');
    const summary = failed.map((r) => (r.reachable !== 'ok' ? `${r.name} ${r.reachable}` : `${r.name} schema ${r.schema}`)).join(', ');
    if (summary !== this.lastFailure) {
      if (summary) this.log.warn(`not ready: ${failed.map((r) => `${r.name} ${r.reachable}/${r.schema}${r.error ? ` (${r.error})` : ''}`).join(', ')}`);
      else if (this.lastFailure) this.log.info(`ready again (was: ${this.lastFailure})`);
      this.lastFailure = summary;
    }
    if (failed.length) throw new LoupeError('SERVICE_UNAVAILABLE', `not ready: ${summary}`, { checks }, { 'Retry-After': '5' });
    return { status: 'pass', checks };
  }
}
