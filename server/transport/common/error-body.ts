import type { LoupeError } from '../../engine/errors';
import type { ErrorBody } from '../../../protocol/api/common';

/** The one wire shape of a failure (`ErrorBody`), for every transport: HTTP bodies, A2A task errors. */
export function errorBody(error: LoupeError): ErrorBody {
  const details = error.details ?? {};
  const { field, required, available, retry_after, ...rest } = details as Record<string, unknown>;
  return {
    status: 'error' as const,
    message: error.message,
    code: error.code,
    ...(typeof field === 'string' ? { field } : {}),
    ...(typeof required === 'number' ? { required } : {}),
    ...(typeof available === 'number' ? { available } : {}),
    ...(typeof retry_after === 'number' ? { retry_after } : {}),
    ...(Object.keys(rest).length ? { details: rest } : {}),
  };
}
