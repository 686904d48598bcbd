/**
 * The research answer's first line on real code nobody here wrote: Flask 2.2.2 from Debian and hono 4.13.19
 * from npm (the whole package: its ES module build, its CommonJS build and its type declarations). Each
 * question here was answered wrongly before the lead learnt what a definition's body says and that a
 * definition's copies share the search's rank (bench/research-eval.ts, docs/benchmarks.md):
 *
 * - a stub the subclasses override (`View.dispatch_request` only raises NotImplementedError) is not where
 *   Flask dispatches; `Flask.dispatch_request` is;
 * - a decorator that registers callbacks (`Scaffold.after_request`, `after_this_request`) is not what runs
 *   them; `Flask.process_response` is;
 * - the definition covering more of the question (`url_for`: a URL, built for an endpoint) beats the one
 *   named after a single word of it (`Request.endpoint`);
 * - the search ranks hono's declaration of `Context.redirect` first: its implementation in context.js shares
 *   that rank, and beats `WSContext.send`, which only says "send";
 * - the four event processors' own `getQueryString` are variants, not how hono parses a query string.
 *
 * The test checks these questions only, not the benchmark's figures.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createTestEngine, indexFolder, tempDir, type TestEngine } from '../helpers/engine';
import { debianPackage, npmPackage } from '../helpers/real-code';
import { firstLine, judge } from '../../bench/research-eval';
import type { ResearchQuestion } from '../../bench/research-questions';
import type { Caller } from '../../server/engine/operations/call';

async function firstLines(t: TestEngine, caller: Caller, repoId: string, questions: ResearchQuestion[]): Promise<string[]> {
  const store = t.engine.storage.research;
  const symbolsOf = (_c: string, filePath: string) => {
    const row = store.file(repoId, filePath);
    return row ? store.symbols(row.id) : [];
  };
  const wrong: string[] = [];
  for (const q of questions) {
    const run = await t.engine.ops.search.research(caller, { query: q.question, chat: true, repo_ids: [repoId] } as never);
    let answer = '';
    for await (const event of run.events(new AbortController().signal)) if (event.type === 'chunk') answer += event.text;
    if (!judge(q, firstLine(answer), symbolsOf).right) wrong.push(`${q.question}: ${firstLine(answer).slice(0, 160)}`);
  }
  return wrong;
}

let t: TestEngine;
let caller: Caller;
before(async () => {
  t = createTestEngine();
  caller = await t.engine.ops.auth.caller({ apiKey: t.key });
});
after(() => t.close());

test('Flask (Debian python3-flask 2.2.2): the dispatcher, the runner of callbacks and the URL builder lead', async () => {
  const root = path.join(tempDir('loupe-flask-'), 'flask');
  fs.cpSync(path.join(debianPackage('python3-flask', '2.2.2-3'), 'usr/lib/python3/dist-packages/flask'), root, { recursive: true });
  const repo = await indexFolder(t, root);
  await t.engine.vectors.idle();
  const p = (symbol: string, file: string) => ({ symbol, file });
  const questions: ResearchQuestion[] = [
    { corpus: 'flask', question: 'how does flask dispatch a request to the view function', expect: [p('dispatch_request', 'app.py'), p('full_dispatch_request', 'app.py')] },
    { corpus: 'flask', question: 'how are after request functions applied to the response', expect: [p('process_response', 'app.py')] },
    { corpus: 'flask', question: 'how is a URL built for an endpoint', expect: [p('url_for', 'app.py'), p('url_for', 'helpers.py')] },
  ];
  assert.deepEqual(await firstLines(t, caller, repo.id, questions), []);
});

test('hono (npm 4.13.19, every build): a declaration\'s rank reaches its implementation; one variant of many does not lead', async () => {
  const root = path.join(tempDir('loupe-hono-'), 'hono');
  fs.cpSync(path.join(npmPackage('hono@4.13.19'), 'dist'), path.join(root, 'dist'), { recursive: true });
  const repo = await indexFolder(t, root);
  await t.engine.vectors.idle();
  const p = (symbol: string, file: string) => ({ symbol, file });
  const questions: ResearchQuestion[] = [
    { corpus: 'hono', question: 'how does a handler send a redirect', expect: [p('redirect', 'context.js')] },
    { corpus: 'hono', question: 'how are query string parameters parsed', expect: [p('_getQueryParam', 'utils/url.js'), p('getQueryParam', 'utils/url.js'), p('getQueryParams', 'utils/url.js')] },
  ];
  assert.deepEqual(await firstLines(t, caller, repo.id, questions), []);
});

test('axios (npm 1.7.9, sources and bundles): the function whose code does the work leads, and no bundle is cited beside the source', async () => {
  const root = path.join(tempDir('loupe-axios-'), 'axios');
  fs.cpSync(npmPackage('axios@1.7.9'), root, { recursive: true });
  const repo = await indexFolder(t, root);
  await t.engine.vectors.idle();
  const ask = async (question: string) => {
    const run = await t.engine.ops.search.research(caller, { query: question, chat: true, repo_ids: [repo.id] } as never);
    let answer = '';
    for await (const event of run.events(new AbortController().signal)) if (event.type === 'chunk') answer += event.text;
    return answer;
  };
  // `InterceptorManager.eject` only shares its class's name with the question; `Axios._request` builds the chains and runs them.
  const interceptors = await ask('how are interceptors run?');
  assert.match(firstLine(interceptors), /^`Axios\._request` in lib\/core\/Axios\.js:65-/);
  // `headersToObject` is a one-line instanceof helper; mergeConfig merges the config's headers, Axios._request flattens them.
  const headers = await ask('where are request headers merged?');
  assert.match(firstLine(headers), /^`(mergeConfig` in lib\/core\/mergeConfig\.js|Axios\._request` in lib\/core\/Axios\.js):/);
  for (const answer of [interceptors, headers]) {
    const beforeSources = answer.split('### Sources')[0];
    assert.doesNotMatch(beforeSources, /dist\//, 'a bundled copy is cited beside its source');
  }
});
