import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { createTestEngine, indexFolder, type TestEngine } from '../helpers/engine';
import { copyOf, debianPackage } from '../helpers/real-code';

/**
 * The hybrid ranking gives a chunk no extra credit for the query's words among the names it defines (or imports):
 * BM25's symbols column weighs those already, and a chunk defining or importing many names (gin's utils.go,
 * binding/form_mapping.go, Flask's cli.py) took the first place from the file both retrievers preferred
 * (bench/search-eval.ts, docs/benchmarks.md). Each project is indexed alone, as the eval does, on Debian's sources.
 */
const engines: TestEngine[] = [];
const repo = { gin: { t: null as unknown as TestEngine, id: '' }, flask: { t: null as unknown as TestEngine, id: '' } };

before(async () => {
  const folders = {
    gin: copyOf(path.join(debianPackage('golang-github-gin-gonic-gin-dev', '1.8.1-1'), 'usr/share/gocode/src/github.com/gin-gonic/gin')),
    flask: copyOf(path.join(debianPackage('python3-flask', '2.2.2-3'), 'usr/lib/python3/dist-packages/flask')),
  };
  for (const name of ['gin', 'flask'] as const) {
    const t = createTestEngine();
    engines.push(t);
    repo[name] = { t, id: (await indexFolder(t, folders[name])).id };
    await t.engine.vectors.idle();
  }
});
after(async () => { for (const t of engines) await t.close(); });

async function files(where: keyof typeof repo, query: string): Promise<string[]> {
  const { t, id } = repo[where];
  const r = await t.engine.search.search(t.ownerId, { query, scope: 'files', limit: 10, repoIds: [id] });
  assert.deepEqual(r.warnings, [], 'the vectors are ready: the search is hybrid');
  return r.results.map((h) => h.filePath!);
}

test('the file both retrievers prefer is not overtaken by one whose defined names carry the query words', async () => {
  // utils.go defines chooseData and parseAccept ("choose", "accept"); Context.Negotiate in context.go is the answer.
  const negotiate = await files('gin', 'choose the response format from the Accept header');
  assert.equal(negotiate[0], 'context.go', negotiate.slice(0, 3).join(', '));
  // binding/form_mapping.go defines setSlice, setArray, head(str, …) and a dozen more; bytesconv.go's StringToBytes is the answer.
  const bytes = await files('gin', 'convert a string to a byte slice without copying');
  assert.equal(bytes[0], 'internal/bytesconv/bytesconv.go', bytes.slice(0, 3).join(', '));
  // cli.py defines prepare_import(path), SeparatedPathType, … ; Config.from_pyfile in config.py is the answer.
  const pyfile = await files('flask', 'read settings from a python file given its path');
  assert.equal(pyfile[0], 'config.py', pyfile.slice(0, 3).join(', '));
});
