/**
 * What the research lead reads from a definition's body and from the files around it (research/lead.ts):
 * stubs, registering decorators, deprecated code, getters, types spelled as variables, who calls a name, who imports it,
 * and one key for a module's builds.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bodyTraits, countCallers, moduleKey } from '../../server/engine/research/lead';
import { leadCandidates, type ResearchHit } from '../../server/engine/research/grounding';

const py = (...lines: string[]) => lines;

test('a stub only refuses or does nothing; a body that works is not one', () => {
  assert.equal(bodyTraits('method', null, py(
    '    def dispatch_request(self) -> ft.ResponseReturnValue:',
    '        """The actual view function behavior. Subclasses must',
    '        override this and return a valid response."""',
    '        raise NotImplementedError()',
  )).stub, true);
  assert.equal(bodyTraits('method', null, py('    def hook(self):', '        pass')).stub, true);
  assert.equal(bodyTraits('method', 'send(data)', ['  send(data) {', "    throw new Error('not implemented');", '  }']).stub, true);
  assert.equal(bodyTraits('method', 'abstract send(data: string): void', ['  abstract send(data: string): void;']).stub, true);
  assert.equal(bodyTraits('method', null, py(
    '    def dispatch_request(self) -> ft.ResponseReturnValue:',
    '        """Does the request dispatching."""',
    '        req = request_ctx.request',
    '        return self.ensure_sync(self.view_functions[rule.endpoint])(**req.view_args)',
  )).stub, false);
});

test('a registering decorator hands back the function it stored; a function returning its changed argument does not register', () => {
  const registrar = bodyTraits('method', null, py(
    '    @setupmethod',
    '    def after_request(self, f: T_after_request) -> T_after_request:',
    '        """Register a function to run after each request to this object."""',
    '        self.after_request_funcs.setdefault(None, []).append(f)',
    '        return f',
  ));
  assert.equal(registrar.registrar, true);
  const runner = bodyTraits('method', null, py(
    '    def process_response(self, response: Response) -> Response:',
    '        ctx = request_ctx._get_current_object()',
    '        for func in ctx._after_request_functions:',
    '            response = self.ensure_sync(func)(response)',
    '        return response',
  ));
  assert.equal(runner.registrar, false);
});

test('deprecated code, getters and setters, and types spelled as variables are recognised', () => {
  assert.equal(bodyTraits('method', null, py(
    '    def before_app_first_request(self, f):',
    '        warnings.warn("deprecated", DeprecationWarning, stacklevel=2)',
    '        self.record_once(lambda s: s.app.before_first_request_funcs.append(f))',
    '        return f',
  )).deprecated, true);
  assert.equal(bodyTraits('method', 'valid(target)', ['  valid(target) {', '    return this.#validatedData?.[target];', '  }']).accessor, true);
  assert.equal(bodyTraits('method', 'addValidatedData(target, data)', ['  addValidatedData(target, data) {', '    (this.#validatedData ??= {})[target] = data;', '  }']).accessor, true);
  assert.equal(bodyTraits('function', 'getPath(request)', ['const getPath = (request) => {', '  const url = request.url;', '  return url.slice(url.indexOf("/", 8));', '};']).accessor, false);
  assert.equal(bodyTraits('variable', 'T_before_request', ['T_before_request = t.TypeVar(', '    "T_before_request", bound=ft.BeforeRequestCallable', ')']).typeAlias, true);
  assert.equal(bodyTraits('variable', 'MAX', ['MAX = 10']).typeAlias, false);
});

test('callers: other definitions that call a name, a module\'s builds once, a definition calling its own name not at all', () => {
  const file = (p: string) => ({
    path: p,
    lines: [
      'function dispatch(req) {',
      '  return handle(req);',
      '}',
      'function handle(req) {',
      '  return handle.next ? handle(req.next) : req;',
      '}',
      'handle(start);',
    ],
    symbols: [
      { name: 'dispatch', parent: null, kind: 'function' as const, startLine: 1, endLine: 3 },
      { name: 'handle', parent: null, kind: 'function' as const, startLine: 4, endLine: 6 },
    ],
  });
  const counts = countCallers([file('dist/router.js'), file('dist/cjs/router.js'), { ...file('lib/other.js') }]);
  // dispatch and the module level of router.js (its two builds count once), and the same two of other.js.
  assert.equal(counts.get('handle'), 4);
  assert.equal(counts.get('dispatch') ?? 0, 0);
});

test('one module key for the ES module build, the CommonJS build and the declaration', () => {
  assert.equal(moduleKey('dist/cjs/utils/url.js'), 'utils/url');
  assert.equal(moduleKey('dist/utils/url.js'), 'utils/url');
  assert.equal(moduleKey('dist/types/utils/url.d.ts'), 'utils/url');
  assert.notEqual(moduleKey('src/router/trie.ts'), moduleKey('src/router/node.ts'));
});

test('importers: other files that import a definition by name (a method through its class) or its whole file; tests and the file itself do not count', () => {
  const hits: ResearchHit[] = [{ repoId: 'r', repoName: 'r', filePath: 'app.py', score: 1 }];
  const symbols = [
    { name: 'Flask', kind: 'class' as const, parent: null, startLine: 1, endLine: 9, exported: true, signature: null, doc: null },
    { name: 'make_response', kind: 'method' as const, parent: 'Flask', startLine: 2, endLine: 4, exported: true, signature: null, doc: null },
    { name: 'helper', kind: 'function' as const, parent: null, startLine: 10, endLine: 12, exported: true, signature: null, doc: null },
  ];
  const row = (path: string, names: string[]) => ({ fileId: 0, path, targetPath: 'app.py', names, line: 1 });
  const importers = (_: string, path: string) => (path !== 'app.py' ? [] : [
    row('__init__.py', ['Flask']), row('testing.py', ['Flask']), row('cli.py', ['Flask']), row('cli.py', ['helper']),
    row('tests/test_app.py', ['Flask', 'helper']), row('app.py', ['helper']), row('ctx.py', ['*']),
  ]);
  const got = leadCandidates(hits, () => ({ row: { repoId: 'r', path: 'app.py' }, symbols }), [], undefined, importers);
  const count = (name: string) => got.find((c) => c.symbol.name === name)!.importers;
  assert.equal(count('Flask'), 4);
  assert.equal(count('make_response'), 4, 'a method counts the files importing its class');
  assert.equal(count('helper'), 2, 'cli.py by name, ctx.py the whole module');
});

test("a function's code words are read past its header and comments, split into sub-words", () => {
  const words = bodyTraits('method', '_request(configOrUrl, config)', [
    '  _request(configOrUrl, config) {',
    '    // filter out skipped handlers',
    '    this.interceptors.request.forEach(function unshiftRequestInterceptors(interceptor) {',
    "      if (interceptor.runWhen(config) === false) return;",
    '    });',
    '  }',
  ]).words ?? [];
  for (const w of ['interceptor', 'run', 'unshift']) assert.ok(words.includes(w), w);
  assert.ok(!words.includes('filter') && !words.includes('skip'), 'comments are not code');
  assert.deepEqual(bodyTraits('class', null, ['class A {', '  run() {}', '}']).words, undefined);
});
