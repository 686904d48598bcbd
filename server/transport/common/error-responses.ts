import { Type } from 'typebox';

const DESCRIPTIONS: Record<number, string> = {
  400: 'Validation or business-rule failure; the message names the field and the rule.',
  401: 'Missing or invalid X-API-Key.',
  402: 'Not enough credits; nothing was charged.',
  403: 'Authenticated but not allowed (plan or ownership).',
  404: 'The resource does not exist for the authenticated caller.',
  406: 'The Accept header excludes the content types this route produces.',
  409: 'The resource is in a state that does not allow the operation.',
  429: 'Rate limited; retry after Retry-After seconds.',
  500: 'Unexpected failure; retry with backoff.',
  501: 'No generative chat model is configured on this server; not retryable until one is.',
  503: 'A service the operation needs is temporarily unavailable.',
  507: 'The disk that holds the data dir is full; nothing was half-written.',
};

/** The error responses of a route, all in the ErrorBody shape, for its OpenAPI entry. */
export function errors(...statuses: number[]) {
  const out: Record<number, unknown> = {};
  for (const s of [...statuses, 500]) out[s] = Type.Ref('ErrorBody', { description: DESCRIPTIONS[s] ?? 'Error.' });
  return out;
}
