/**
 * Research on a part of Django 3.2.25 (Debian python3-django): django/test/ is Django's testing library
 * (analysis/testing-libraries.ts), so a question about what its Client does is answered from it. Before, research
 * dropped every file under test/ unless the question asked for tests, and named `HttpResponseRedirectBase.__init__`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createTestEngine, indexFolder, tempDir } from '../helpers/engine';
import { debianPackage } from '../helpers/real-code';
import { firstLine } from '../../bench/research-eval';

test('"how does the client follow redirects" on Django leads to Client._handle_redirects in django/test/client.py', async () => {
  const t = createTestEngine();
  const root = path.join(tempDir('loupe-django-'), 'django');
  const source = path.join(debianPackage('python3-django', '3:3.2.25-0+deb12u7'), 'usr/lib/python3/dist-packages/django');
  for (const p of ['__init__.py', 'test', 'conf/__init__.py', 'conf/global_settings.py', 'core/handlers', 'core/signals.py', 'http', 'utils/functional.py']) {
    fs.cpSync(path.join(source, p), path.join(root, p), { recursive: true });
  }
  try {
    const caller = await t.engine.ops.auth.caller({ apiKey: t.key });
    const repo = await indexFolder(t, root);
    await t.engine.vectors.idle();
    const run = await t.engine.ops.search.research(caller, { query: 'how does the client follow redirects', chat: true, repo_ids: [repo.id] } as never);
    let answer = '';
    for await (const event of run.events(new AbortController().signal)) if (event.type === 'chunk') answer += event.text;
    assert.match(firstLine(answer), /^`Client\._handle_redirects` in test\/client\.py:/, firstLine(answer));
  } finally {
    await t.close();
    fs.rmSync(path.dirname(root), { recursive: true, force: true });
  }
});
