import { ResponseError, ErrorCodes } from 'vscode-languageserver/node';
import type { Logger } from '../../engine/log';
import { LoupeError } from '../../engine/errors';

/** Loupe's error codes travel as LSP errors in the server-defined range, message intact. */
const LOUPE_ERROR_CODE = -32000;

/**
 * Wraps a handler so that a failing feature answers with an error instead of taking the server
 * down; coded engine errors keep their code in `data`.
 */
export function guarded<P extends unknown[], R>(log: Logger, name: string, handler: (...args: P) => R | Promise<R>) {
  return async (...args: P): Promise<R> => {
    try {
      return await handler(...args);
    } catch (error) {
      if (error instanceof ResponseError) throw error;
      if (error instanceof LoupeError) throw new ResponseError(LOUPE_ERROR_CODE, error.message, { code: error.code });
      log.error(`${name} failed:`, error as Error);
      throw new ResponseError(ErrorCodes.InternalError, `${name} failed: ${(error as Error).message}`);
    }
  };
}
