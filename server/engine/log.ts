/**
 * One logger, injected everywhere. The CLI writes it to stderr; the language server sends it to the
 * client's output channel. Nothing in the engine writes to stdout, which may carry LSP.
 */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface Logger {
  debug(message: string, ...args: unknown[]): void;
  info(message: string, ...args: unknown[]): void;
  warn(message: string, ...args: unknown[]): void;
  error(message: string, ...args: unknown[]): void;
}

const order: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };

export function createLogger(write: (level: LogLevel, line: string) => void, minimum: LogLevel = 'info'): Logger {
  const emit = (level: LogLevel) => (message: string, ...args: unknown[]) => {
    if (order[level] < order[minimum]) return;
    const extra = args.map((a) => (a instanceof Error ? a.stack ?? a.message : typeof a === 'string' ? a : JSON.stringify(a)));
    write(level, [message, ...extra].join(' '));
  };
  return { debug: emit('debug'), info: emit('info'), warn: emit('warn'), error: emit('error') };
}

export const stderrLogger = (minimum: LogLevel = 'info') =>
  createLogger((level, line) => process.stderr.write(`[${level}] ${line}\n`), minimum);

export const silentLogger: Logger = createLogger(() => {}, 'error');
