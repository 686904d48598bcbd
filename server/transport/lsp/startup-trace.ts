import type { Logger } from '../../engine/log';

/**
 * Where a start's seconds go, in the log: each step once, as milliseconds since the process started
 * (`performance.now()` counts from there, so the bundle's own loading is the first number). The
 * steps: the bundle loaded, initialize received, the index opened, initialize answered, the first
 * CodeLens request and its answer, each index run's start and finish, the sidecar listening.
 */
export class StartupTrace {
  private readonly seen = new Set<string>();

  constructor(private readonly log: Logger) {}

  /** Logs `start-up +T ms: <step>` the first time `step` is marked; later marks of it are ignored. */
  mark(step: string, detail = ''): void {
    if (this.seen.has(step)) return;
    this.seen.add(step);
    this.log.info(`start-up +${Math.round(performance.now())} ms: ${step}${detail ? ` (${detail})` : ''}`);
  }

  has(step: string): boolean {
    return this.seen.has(step);
  }
}
