import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFixture, createTestApp } from '../helpers/engine';
import { startLocalLlm } from '../research/local-llm-server';

// A real OpenAI-compatible server on 127.0.0.1 stands in for the user's model (it echoes the prompt).
test('with a docs model configured, the model writes the narrative of full docs; a failing model leaves static docs', async () => {
  for (const status of [undefined, 503]) {
    const llm = await startLocalLlm({ status });
    const t = await createTestApp({ research: { openai: { baseUrl: llm.baseUrl, models: ['tiny-doc-model'] } }, docs: { model: 'tiny-doc-model' } });
    try {
      const res = await t.call('POST', '/v2/repos/index/new', { url: copyFixture('radius-graph') });
      const repo = res.body.data.repo.repo_id;
      await t.engine.queue.idle();
      const url = `/v2/files/${repo}/${encodeURIComponent('src/core/util.ts')}`;
      assert.equal((await t.call('GET', url)).body.meta.processing, true);
      await t.engine.docs.idle();
      const ready = await t.call('GET', url);
      assert.equal(ready.body.meta.processing, false);
      assert.equal(llm.requests.length, 1);
      assert.match(llm.requests[0].messages[0].content, /opening paragraph of the documentation of one source file/);
      assert.match(llm.requests[0].messages[1].content, /File: src\/core\/util\.ts \(typescript, 7 lines\)\nExports: utilValue/);
      if (status === undefined) {
        assert.equal(ready.body.data.generator, 'tiny-doc-model');
        assert.match(ready.body.data.documentation, /^# src\/core\/util\.ts\n\nYou asked: File: src\/core\/util\.ts/);
        const basic = await t.call('GET', `${url}?fields=basic`);
        assert.doesNotMatch(basic.body.data.documentation, /You asked/, 'basic stays static');
      } else {
        assert.equal(ready.body.data.generator, 'static');
        assert.match(ready.body.data.documentation, /^# src\/core\/util\.ts\n\nProvides `utilValue`: Formats an id with the base value\./);
      }
    } finally {
      await t.close();
      await llm.close();
    }
  }
});
