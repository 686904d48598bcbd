import type { Part } from '@a2a-js/sdk';
import type { Operation } from '../common/openapi-operations';

/** Messages that ask for the help text rather than ask a question. */
export const isHelpRequest = (text: string) => /^\s*(\/?help|\?|usage|commands|operations)\s*[.!?]*\s*$/i.test(text) || !text.trim();

/** The operations agents reach for first, listed by name in the help text. */
const FIRST = ['POST /v2/search', 'GET /v2/repos', 'POST /v2/repos/index/new', 'GET /v2/repos/{repo_id}/blueprint',
  'POST /v2/repos/{repo_id}/radius', 'GET /v2/files/{repo_id}/{file_id}', 'POST /v2/repos/{repo_id}/scope'];

/**
 * The answer to "help" or an empty message: what to send, in a few lines, and where the whole
 * contract is. The operations' schemas are in /openapi.json, not repeated here.
 */
export function helpParts(operations: Operation[]): Part[] {
  const first = FIRST.filter((key) => operations.some((o) => o.key === key));
  const text = [
    'Ask a question about your indexed repositories as plain text (your key in the X-API-Key header); the answer streams on message/stream, with its sources as a data part. "What does this repository do?" is answered from the blueprint.',
    'To run one operation of the Code Intelligence API, send a data part (or the same JSON as text): {"operationKey": "POST /v2/search", "body": {"query": "where are cookies signed"}}; the result is its HTTP output.',
    `Operations include ${first.join(', ')} (${operations.length} in all). Every operation and its inputs: /openapi.json (the agent card lists them by skill).`,
  ].join('\n');
  return [
    { kind: 'text', text },
    { kind: 'data', data: { operations: operations.map((o) => o.key), openapi: '/openapi.json' } },
  ];
}

/** The answer to a question from a caller without a key: where the key goes. */
export function needsKeyParts(): Part[] {
  return [{
    kind: 'text',
    text: 'Questions are answered from your indexed repositories, so they need your API key: send it as the X-API-Key header of the A2A request (or Authorization: Bearer <key>). Send "help" for what else I do.',
  }];
}
