import type { Logger } from './engine/log';

export interface StopSignals {
  /** Start-up is done: call it just before the process says it is ready. A signal held meanwhile stops it here. */
  started(): Promise<void>;
}

/**
 * SIGINT and SIGTERM close the process cleanly (`close`, then exit 0). The handlers are installed at the
 * start, before the process prints the address a script waits for: installed after it, a script that
 * sent SIGINT the moment it read that line could meet Node's default action on a loaded machine (killed
 * by the signal, nothing closed). A signal during start-up is held until `started()`, so start-up stops
 * there instead of going on against a closed engine. A second signal, during start-up or while stopping,
 * exits at once (130 or 143, the shells' code for "ended by this signal").
 */
export function stopOnSignals(log: Logger, close: () => Promise<void>): StopSignals {
  let ready = false;
  let held: NodeJS.Signals | null = null;
  let stopping = false;
  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    log.info(`${signal}: stopping (again to stop at once)`);
    await close();
    process.exit(0);
  };
  const onSignal = (signal: NodeJS.Signals) => {
    if (held || stopping) process.exit(signal === 'SIGINT' ? 130 : 143);
    else if (ready) void stop(signal);
    else {
      held = signal;
      log.info(`${signal}: stopping once start-up is done (again to stop at once)`);
    }
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    async started() {
      ready = true;
      if (held) await stop(held);
    },
  };
}
