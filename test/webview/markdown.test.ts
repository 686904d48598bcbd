import { test } from 'node:test';
import assert from 'node:assert/strict';
import { escapeHtml, renderMarkdown } from '../../webview/markdown';
import { displayOrder, groupHits, snippetLines } from '../../webview/highlight';

const files = [{ path: 'src/util/format.ts', uri: 'file:///w/src/util/format.ts' }];

test('answers are escaped: HTML in a streamed answer never becomes markup', () => {
  const html = renderMarkdown('<img src=x onerror=alert(1)> **bold**');
  assert.ok(!html.includes('<img'));
  assert.match(html, /&lt;img src=x onerror=alert\(1\)&gt; <strong>bold<\/strong>/);
  assert.equal(escapeHtml(`"'&`), '&quot;&#39;&amp;');
});

test('italics with underscores at word edges, as the grounded answer writes its note; snake_case and __init__ stay', () => {
  const html = renderMarkdown('_Extractive answer by loupe-grounded: composed from the index._ See snake_case_name in __init__.py and _note_.');
  assert.match(html, /^<p><em>Extractive answer by loupe-grounded: composed from the index\.<\/em> /);
  assert.match(html, /snake_case_name in __init__\.py and <em>note<\/em>\.<\/p>$/);
});

test('headings, lists and fenced code render; a half-streamed fence still renders', () => {
  const html = renderMarkdown('## Where\n- one\n- two\n\n```ts\nconst a = 1 < 2;\n');
  assert.match(html, /<h4>Where<\/h4>/);
  assert.match(html, /<ul>\n<li>one<\/li>\n<li>two<\/li>\n<\/ul>/);
  assert.match(html, /<pre><code>const a = 1 &lt; 2;\n?<\/code><\/pre>/);
});

test('references to cited files become links at their line; unknown files stay text', () => {
  const html = renderMarkdown('See src/util/format.ts:3-6 and `format.ts:9` and [the helper](src/util/format.ts#L4), not src/other.ts:2.', files);
  const links = [...html.matchAll(/data-uri="([^"]+)" data-line="(\d+)"/g)].map((m) => `${m[1]}@${m[2]}`);
  assert.deepEqual(links, ['file:///w/src/util/format.ts@3', 'file:///w/src/util/format.ts@9', 'file:///w/src/util/format.ts@4']);
  assert.match(html, /not src\/other\.ts:2\./);
});

test('snippet highlights mark exactly the matched ranges, escaped', () => {
  const lines = snippetLines(10, 'a <b> formatPrice\nnone', [{ line: 10, start: 6, end: 17 }, { line: 12, start: 0, end: 1 }]);
  assert.deepEqual(lines, [
    { number: 10, html: 'a &lt;b&gt; <mark>formatPrice</mark>', hasMatch: true },
    { number: 11, html: 'none', hasMatch: false },
  ]);
});

test('hits group by file in the order of each file\'s best (first) hit, as the API ranks them, across repositories', () => {
  const groups = groupHits([
    { repo_name: 'r1', file_path: 'b.ts' }, { repo_name: 'r2', file_path: 'a.ts' }, { repo_name: 'r1', file_path: 'a.ts' },
    { repo_name: 'r1', file_path: 'c.ts' }, { repo_name: 'r1', file_path: 'b.ts' },
  ]);
  // r2's a.ts ranks between r1's files: it is drawn there, under its own repository heading.
  assert.deepEqual(groups.map((g) => [g.repo, g.files.map((f) => `${f.path}×${f.hits.length}`)]), [['r1', ['b.ts×2']], ['r2', ['a.ts×1']], ['r1', ['a.ts×1', 'c.ts×1']]]);
});

test('scope all: the repository row, then the files in the API\'s file order; a function or code hit joins its file', () => {
  const hit = (type: string, path: string | null, line = 1) => ({ type, repo_name: 'r', file_path: path, line });
  const answer = [hit('repo', null), hit('file', 'app.py', 1730), hit('file', 'views.py', 73), hit('function', 'views.py', 75),
    hit('function', 'app.py', 1773), hit('function', 'ctx.py', 10), hit('code', 'app.py', 1730)];
  const drawn = displayOrder(answer);
  assert.deepEqual([...new Set(drawn.map((h) => h.file_path))], [null, 'app.py', 'views.py', 'ctx.py']);
  assert.deepEqual(drawn.filter((h) => h.file_path === 'app.py').map((h) => `${h.type}:${h.line}`), ['file:1730', 'function:1773', 'code:1730']);
  // Row i as drawn is displayOrder()[i]: a click on row i opens that hit.
  assert.deepEqual(groupHits(answer).flatMap((r) => r.files.flatMap((f) => f.hits)), drawn);
});

test('the rows are drawn grouped by file and row i is displayOrder()[i], even when a file\'s hits are not contiguous', () => {
  const hit = (path: string, line: number) => ({ repo_name: 'r', file_path: path, line });
  // Score order interleaves the files: cookie.ts, index.ts, cookie.ts.
  const ranked = [hit('src/cookie.ts', 3), hit('src/helper/cookie/index.ts', 99), hit('src/cookie.ts', 40)];
  const drawn = groupHits(ranked).flatMap((r) => r.files.flatMap((f) => f.hits));
  assert.deepEqual(displayOrder(ranked), drawn);
  assert.deepEqual(displayOrder(ranked).map((h) => `${h.file_path}:${h.line}`), ['src/cookie.ts:3', 'src/cookie.ts:40', 'src/helper/cookie/index.ts:99']);
});

test('semantic highlights cover the whole identifier; grep highlights stay exact', () => {
  const text = 'export function setCookie(name) {';
  const highlights = [{ line: 3, start: 19, end: 25 }]; // "Cookie"
  assert.equal(snippetLines(3, text, highlights, true)[0].html, 'export function <mark>setCookie</mark>(name) {');
  assert.equal(snippetLines(3, text, highlights)[0].html, 'export function set<mark>Cookie</mark>(name) {');
  // Two sub-words of one name become one mark.
  const two = [{ line: 1, start: 3, end: 9 }, { line: 1, start: 9, end: 11 }];
  assert.equal(snippetLines(1, 'a  getCookieOf(x)', two, true)[0].html, 'a  <mark>getCookieOf</mark>(x)');
});
