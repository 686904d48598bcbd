import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { analyzeScript } from '../../server/engine/indexer/parse-typescript';
import { ModuleResolver } from '../../server/engine/indexer/resolver';
import { analyzeWithTreeSitter } from '../../server/engine/indexer/parse-tree-sitter';
import { detectLanguage } from '../../server/engine/indexer/languages';
import { debianPackage, npmPackage, within } from '../helpers/real-code';

const resolver = new ModuleResolver(__dirname);
const symbolsOf = (file: string, text: string) => analyzeScript(file, text, resolver).symbols;
const lines = (file: string, text: string) =>
  symbolsOf(file, text).map((s) => `${s.kind} ${s.parent ? `${s.parent}.` : ''}${s.name}${s.exported ? ' exported' : ''} ${s.startLine}-${s.endLine} | ${s.signature}`);

test('a signature is the declaration header: no body, no comments, generics whole', () => {
  const text = [
    '/** The app. */',
    '@Injectable({ providedIn: "root" })',
    'export class Hono<',
    '  E extends Env = Env,',
    '  S extends Schema = {}, // the routes',
    '> extends Base<E> implements App {',
    '  #secret = 1;',
    '  private cache = new Map<string, number>();',
    '  fetch = (request: Request /* the incoming one */, env?: E): Response => {',
    '    return new Response();',
    '  };',
    '  handler: (req: Request) => Promise<void>;',
    '  protected route(path: string): this { return this; }',
    '}',
    'export const pick = <T,>(',
    '  value: T,',
    '): T => value;',
    'export const DEFAULTS = {',
    '  retries: 3,',
    '};',
    'export const NAME: string = "hono";',
    'export type Handler<T extends { id: string } = { id: string }> = {',
    '  run(t: T): void;',
    '};',
    'export type Id = string | number;',
    'export async function* walk(dir: string, { depth = 1 }: Options = {}): AsyncGenerator<string> {',
    '  yield dir;',
    '}',
    'export const Widget = class Widget<T = {}> { render = () => 1; };',
  ].join('\n');
  assert.deepEqual(lines('app.ts', text), [
    'class Hono exported 2-14 | export class Hono<E extends Env = Env, S extends Schema = {}> extends Base<E> implements App',
    'property Hono.cache 8-8 | private cache = new Map<string, number>()',
    'method Hono.fetch exported 9-11 | fetch = (request: Request, env?: E): Response =>',
    'method Hono.handler exported 12-12 | handler: (req: Request) => Promise<void>',
    'method Hono.route 13-13 | protected route(path: string): this',
    'function pick exported 15-17 | export const pick = <T,>(value: T): T =>',
    'constant DEFAULTS exported 18-20 | export const DEFAULTS',
    'constant NAME exported 21-21 | export const NAME: string = "hono"',
    'type Handler exported 22-24 | export type Handler<T extends { id: string } = { id: string }>',
    'type Id exported 25-25 | export type Id = string | number',
    'function walk exported 26-28 | export async function* walk(dir: string, { depth = 1 }: Options = {}): AsyncGenerator<string>',
    'class Widget exported 29-29 | export const Widget = class Widget<T = {}>',
    'method Widget.render exported 29-29 | render = () =>',
  ]);
});

test('hono (npm): class-property arrow functions are methods with their headers, in the JavaScript and in the declarations', () => {
  const root = npmPackage('hono@4.13.19');
  const golden = fs.readFileSync(path.join(__dirname, '..', 'golden', 'hono-base.symbols.txt'), 'utf8').trim().split('\n');
  const actual: string[] = [];
  for (const file of ['dist/hono-base.js', 'dist/types/hono-base.d.ts']) {
    actual.push(`# ${file}`, ...lines(file, fs.readFileSync(path.join(root, file), 'utf8')));
  }
  assert.deepEqual(actual, golden);
  // The public API the issue found missing: fetch, request, fire are methods of the exported class.
  for (const name of ['fetch', 'request', 'fire', 'onError', 'notFound']) {
    assert.ok(golden.some((l) => l.startsWith(`method Hono.${name} exported`) && l.includes('=>')), name);
  }
});

test('phaser (npm): no signature holds a body, a comment or a line break', () => {
  const root = npmPackage('phaser@3.90.0');
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.js')) files.push(p);
    }
  };
  walk(path.join(root, 'src'));
  assert.ok(files.length > 1500, `${files.length} files`);
  let checked = 0;
  for (const file of files) {
    for (const s of symbolsOf(path.relative(root, file), fs.readFileSync(file, 'utf8'))) {
      if (!s.signature) continue;
      checked++;
      assert.doesNotMatch(s.signature, /\/\*|\/\/|\n/, `${file}: ${s.signature}`);
      // A function's header stops before its body: it never ends with, or holds, an opened block.
      if (s.kind === 'function' || s.kind === 'method') assert.doesNotMatch(s.signature, /\)\s*\{|=>\s*\{|\breturn\b/, `${file}: ${s.signature}`);
    }
  }
  assert.ok(checked > 7000, `${checked} signatures`);
});

test('tree-sitter languages (tokio, bazel buildjar, symfony/console, libxcrypt, rack): headers without bodies, comments or line breaks', async () => {
  const projects: [string, string][] = [
    [within(debianPackage('librust-tokio-dev', '1.24.2-1'), 'usr/share/cargo/registry/tokio-*'), 'src'],
    [debianPackage('bazel-bootstrap-source', '4.2.3+ds-9'), 'usr/src/bazel-bootstrap/src/java_tools/buildjar'],
    [debianPackage('php-symfony-console', '5.4.53+dfsg-0+deb12u1'), 'usr/share/php/Symfony/Component/Console'],
    [debianPackage('libxcrypt-source', '1:4.4.33-2'), 'usr/src/libxcrypt/lib'],
    [within(debianPackage('ruby-rack', '2.2.22-0+deb12u1'), 'usr/share/rubygems-integration/all/gems/rack-*'), 'lib'],
  ];
  const found = new Map<string, string>();
  let checked = 0;
  for (const [pkg, sub] of projects) {
    const root = path.join(pkg, sub);
    const walk = (dir: string): string[] => fs.readdirSync(dir, { withFileTypes: true })
      .flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]));
    for (const file of walk(root)) {
      const language = detectLanguage(path.basename(file));
      if (!language) continue;
      const rel = path.relative(root, file);
      for (const s of (await analyzeWithTreeSitter(language, rel, fs.readFileSync(file, 'utf8'), root)).symbols) {
        if (!s.signature) continue;
        checked++;
        found.set(`${rel} ${s.name}`, s.signature);
        assert.doesNotMatch(s.signature, /\/\*|\/\/|\n/, `${rel}: ${s.signature}`);
        if (s.kind === 'function' || s.kind === 'method') assert.doesNotMatch(s.signature, /\{\s*$|\breturn\b/, `${rel}: ${s.signature}`);
      }
    }
  }
  assert.ok(checked > 7000, `${checked} signatures`);
  // Headers over several lines, checked against the source.
  assert.equal(found.get('future/try_join.rs try_join3'), 'pub(crate) fn try_join3<T1, F1, T2, F2, T3, F3, E>(future1: F1, future2: F2, future3: F3) -> TryJoin3<F1, F2, F3> where F1: Future<Output = Result<T1, E>>, F2: Future<Output = Result<T2, E>>, F3: Future<Output = Result<T3, E>>');
  assert.equal(found.get('macros/ready.rs ready'), 'macro_rules! ready');
  assert.equal(found.get('alg-gost3411-2012-hmac.h gost_hmac_256_t'), 'typedef struct {…} gost_hmac_256_t');
  assert.equal(found.get('Color.php AVAILABLE_OPTIONS'), 'private const AVAILABLE_OPTIONS');
  assert.equal(found.get('Output/TrimmedBufferOutput.php __construct'), 'public function __construct(int $maxLength, ?int $verbosity = self::VERBOSITY_NORMAL, bool $decorated = false, ?OutputFormatterInterface $formatter = null)');
});
