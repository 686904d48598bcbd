import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ERROR_CODES } from '../../server/engine/errors';

const DOC = path.join(__dirname, '..', '..', 'docs', 'errors.md');

/** docs/errors.md lists every error code with its HTTP status. Refresh it with UPDATE=1. */
function render(): string {
  const rows = Object.entries(ERROR_CODES).map(([code, { status, summary }]) => `| \`${code}\` | ${status} | ${summary} |`);
  return `# Error codes

Every failure of the HTTP API has the shape \`{"status": "error", "message": "...", "code": "..."}\`
(plus \`field\` when a request field is at fault, \`required\`/\`available\` on 402, \`retry_after\` on 429).
The message is for people; the code is for programs. Through A2A the same code appears in the task's
error, and the language server reports it in its error data.

Retry only 5xx, with backoff, except 501 \`MODEL_NOT_CONFIGURED\`, which stays until the server is configured; a 4xx
needs a changed request (429: wait \`Retry-After\` seconds).

| code | HTTP status | meaning |
|---|---|---|
${rows.join('\n')}
`;
}

test('docs/errors.md lists exactly the error codes the code defines', () => {
  const expected = render();
  if (process.env.UPDATE) fs.writeFileSync(DOC, expected);
  assert.equal(fs.readFileSync(DOC, 'utf8'), expected, 'docs/errors.md is stale: run UPDATE=1 node --import tsx --test test/docs/errors-doc.test.ts');
});
