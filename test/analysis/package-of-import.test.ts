import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { blueprintOf, createTestApp, tempDir, type TestApp } from '../helpers/engine';
import { copyOf, debianPackage, within } from '../helpers/real-code';

let t: TestApp;
before(async () => { t = await createTestApp(); });
after(() => t.close());

/** Indexes a folder (then removes it) and returns its blueprint's dependencies. */
async function dependenciesOf(root: string): Promise<{ name: string; files: number; version: string | null }[]> {
  try {
    return (await blueprintOf(t, root)).dependencies;
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

/**
 * A gem of a Debian ruby-* package opened as a checkout (its gemspec beside lib/), and its blueprint's dependencies:
 * files importing each, by name.
 */
async function gemDependencies(pkg: string, version: string, gem: string, gemVersion: string, files: Record<string, string> = {}): Promise<Record<string, number>> {
  const gems = path.join(debianPackage(pkg, version), 'usr/share/rubygems-integration/all');
  const root = copyOf(path.join(gems, `gems/${gem}-${gemVersion}`), `loupe-${gem}-`);
  fs.copyFileSync(path.join(gems, `specifications/${gem}-${gemVersion}.gemspec`), path.join(root, `${gem}.gemspec`));
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(root, name), text);
  return Object.fromEntries((await dependenciesOf(root)).map((d: { name: string; files: number }) => [d.name, d.files]));
}

/**
 * A Ruby `require` names a file, and the gem that holds it is the declared one whose name, `-` read as `/`, starts
 * the path: sinatra 3.0.5 (Debian, its gemspec beside lib/ as in a checkout) requires 'rack/protection' from the
 * rack-protection gem it declares. Before, every require counted under its first folder: rack-protection was
 * imported by no file and rack by the file that uses rack-protection.
 */
test('blueprint dependencies: a require belongs to the declared gem its path spells (sinatra)', async () => {
  const deps = await gemDependencies('ruby-sinatra', '3.0.5-3+deb12u1', 'sinatra', '3.0.5');
  assert.equal(deps['rack-protection'], 1, JSON.stringify(deps)); // lib/sinatra/base.rb
  assert.equal(deps.rack, 2, JSON.stringify(deps)); // base.rb (rack), show_exceptions.rb (rack/show_exceptions)
  assert.equal(deps.mustermann, 1, JSON.stringify(deps)); // base.rb: mustermann, mustermann/sinatra, mustermann/regular
});

/**
 * A declared gem goes before Ruby's standard library, which is read by the path required: net-scp 4.0.0 (Debian, its
 * gemspec beside lib/) requires 'net/ssh' from the net-ssh gem it declares. Before, every require under net/ was
 * Ruby's (net/http's folder): net-ssh was imported by no file.
 */
test('blueprint dependencies: a declared gem under a standard library\'s folder is the gem (net-scp requires net/ssh)', async () => {
  const deps = await gemDependencies('ruby-net-scp', '4.0.0-1', 'net-scp', '4.0.0');
  assert.equal(deps['net-ssh'], 1, JSON.stringify(deps)); // lib/net/scp.rb
  assert.equal(deps.net, undefined, JSON.stringify(deps));
});

/**
 * A gem pulled in through another is named by Gemfile.lock, which lists every gem Bundler resolved: thor 1.2.1
 * (Debian, its gemspec beside lib/) requires 'diff/lcs' (lib/thor/shell/color.rb, html.rb), the diff-lcs gem that
 * rspec-expectations and rspec-mocks, which its Gemfile's test group declares, depend on. Before, it was a gem "diff".
 * No Gemfile.lock ships in a package on this machine: this one is written as Bundler 2.3 writes it, with rspec 3.12's
 * real dependencies (rspec-expectations 3.12.0 requires diff-lcs >= 1.2.0, < 2.0).
 */
test('blueprint dependencies: a require belongs to the gem Gemfile.lock lists (thor requires diff/lcs)', async () => {
  const lock = [
    'PATH', '  remote: .', '  specs:', '    thor (1.2.1)', '',
    'GEM', '  remote: https://rubygems.org/', '  specs:',
    '    diff-lcs (1.5.0)',
    '    rspec (3.12.0)', '      rspec-core (~> 3.12.0)', '      rspec-expectations (~> 3.12.0)', '      rspec-mocks (~> 3.12.0)',
    '    rspec-core (3.12.0)', '      rspec-support (~> 3.12.0)',
    '    rspec-expectations (3.12.0)', '      diff-lcs (>= 1.2.0, < 2.0)', '      rspec-support (~> 3.12.0)',
    '    rspec-mocks (3.12.0)', '      diff-lcs (>= 1.2.0, < 2.0)', '      rspec-support (~> 3.12.0)',
    '    rspec-support (3.12.0)', '',
    'PLATFORMS', '  ruby', '', 'DEPENDENCIES', '  rspec', '  thor!', '', 'BUNDLED WITH', '   2.3.26', '',
  ].join('\n');
  const gemfile = 'source "https://rubygems.org"\n\ngroup :test do\n  gem "rspec", ">= 3.2"\nend\n\ngemspec\n';
  const deps = await gemDependencies('ruby-thor', '1.2.1-2', 'thor', '1.2.1', { Gemfile: gemfile, 'Gemfile.lock': lock });
  assert.equal(deps['diff-lcs'], 2, JSON.stringify(deps));
  assert.equal(deps.diff, undefined, JSON.stringify(deps));
});

/**
 * A gem required but not declared is a dependency under its name (the path's first folder); what the interpreter
 * provides is not: nanoc-core 4.12.14 requires 'contracts' and 'clonefile' (optional, undeclared) and 'fiber'
 * (Ruby's own Fiber extensions), which was listed as a gem "fiber".
 */
test('blueprint dependencies: an undeclared gem is a dependency, Ruby\'s own `require \'fiber\'` is not (nanoc-core)', async () => {
  const gems = path.join(debianPackage('ruby-nanoc-core', '4.12.14-3'), 'usr/share/rubygems-integration/all');
  const root = copyOf(path.join(gems, 'gems/nanoc-core-4.12.14'), 'loupe-nanoc-');
  fs.copyFileSync(path.join(gems, 'specifications/nanoc-core-4.12.14.gemspec'), path.join(root, 'nanoc-core.gemspec'));
  const deps = Object.fromEntries((await dependenciesOf(root)).map((d: { name: string; files: number }) => [d.name, d.files]));
  assert.equal(deps.contracts, 1, JSON.stringify(deps));
  assert.equal(deps.clonefile, 1, JSON.stringify(deps));
  assert.equal(deps['tty-platform'], 1, JSON.stringify(deps)); // declared
  assert.equal(deps.fiber, undefined, JSON.stringify(deps));
});

/**
 * PHP names a namespace; the Composer package is the declared one the namespace's first segments spell. league/commonmark
 * 2.3.9 (Debian's copy under src/, with upstream's composer.json requirements): before, league/config was "imported by
 * 0 files" beside an undeclared `League\Config` (40 files) and `League\Config\Exception` (3), and `php` and
 * `ext-mbstring` were listed as packages.
 */
/** league/commonmark 2.3.9's src/ and upstream's composer.json, and vendor/composer/installed.json when given. */
function commonmark(installed?: unknown): string {
  const root = tempDir('loupe-php-');
  fs.cpSync(path.join(debianPackage('php-league-commonmark', '2.3.9-1+deb12u1'), 'usr/share/php/League/CommonMark'), path.join(root, 'src'), { recursive: true });
  fs.rmSync(path.join(root, 'src/autoload.php'));
  fs.writeFileSync(path.join(root, 'composer.json'), JSON.stringify({
    name: 'league/commonmark',
    require: { php: '^7.4 || ^8.0', 'ext-mbstring': '*', 'league/config': '^1.1.1', 'psr/event-dispatcher': '^1.0', 'symfony/deprecation-contracts': '^2.1 || ^3.0', 'symfony/polyfill-php80': '^1.16' },
    'require-dev': { 'ext-json': '*', 'embed/embed': '^4.4', 'phpunit/phpunit': '^9.5.21', 'symfony/yaml': '^2.3 | ^3.0 | ^4.0 | ^5.0 | ^6.0' },
    autoload: { 'psr-4': { 'League\\CommonMark\\': 'src' } },
  }, null, 2));
  if (installed) {
    fs.mkdirSync(path.join(root, 'vendor/composer'), { recursive: true });
    fs.writeFileSync(path.join(root, 'vendor/composer/installed.json'), JSON.stringify(installed, null, 2));
  }
  return root;
}

test('blueprint dependencies: a PHP namespace belongs to the declared Composer package it spells (commonmark)', async () => {
  const deps = Object.fromEntries((await dependenciesOf(commonmark())).map((d: { name: string; files: number }) => [d.name, d.files]));
  assert.ok(deps['league/config'] >= 40, JSON.stringify(deps));
  assert.equal(deps['psr/event-dispatcher'], 3, JSON.stringify(deps));
  assert.equal(deps['symfony/yaml'], 1, JSON.stringify(deps)); // Symfony\Component\Yaml
  assert.equal(deps['embed/embed'], 1, JSON.stringify(deps)); // namespace Embed
  // Used but undeclared (league/config's own requirement), under its root namespace.
  assert.equal(deps['Nette\\Schema'], 14, JSON.stringify(deps));
  for (const gone of ['League\\Config', 'League\\Config\\Exception', 'Psr\\EventDispatcher', 'php', 'ext-mbstring', 'ext-json']) assert.equal(deps[gone], undefined, gone);
});

/**
 * A repository that holds its vendor/ folder says what Composer installed (vendor/composer/installed.json: the
 * requirements' requirements too) and which namespaces each package's autoload maps. symfony/console 5.4.53 (Debian's
 * copy, with upstream's composer.json requirements) uses `Symfony\Contracts\Service` (symfony/service-contracts, which it
 * declares) and `Symfony\Contracts\EventDispatcher` (symfony/event-dispatcher-contracts, symfony/event-dispatcher's):
 * neither namespace spells its package, and both counted as one made-up `Symfony\Contracts`.
 */
/** symfony/console 5.4.53's code (Debian's copy) and upstream's composer.json requirements. */
function symfonyConsole(): string {
  const root = tempDir('loupe-php-');
  fs.cpSync(path.join(debianPackage('php-symfony-console', '5.4.53+dfsg-0+deb12u1'), 'usr/share/php/Symfony/Component/Console'), root, { recursive: true });
  fs.rmSync(path.join(root, 'autoload.php'));
  const symfony = (names: string[]) => Object.fromEntries(names.map((n) => [`symfony/${n}`, '^5.4']));
  fs.writeFileSync(path.join(root, 'composer.json'), JSON.stringify({
    name: 'symfony/console',
    require: { php: '>=7.2.5', ...symfony(['deprecation-contracts', 'polyfill-mbstring', 'polyfill-php73', 'polyfill-php80', 'service-contracts', 'string']) },
    'require-dev': { ...symfony(['config', 'event-dispatcher', 'dependency-injection', 'lock', 'process', 'var-dumper']), 'psr/log': '^1|^2' },
    autoload: { 'psr-4': { 'Symfony\\Component\\Console\\': '' } },
  }, null, 2));
  return root;
}

test('blueprint dependencies: a PHP namespace belongs to the installed package whose autoload maps it (symfony/console, installed.json)', async () => {
  const root = symfonyConsole();
  // As Composer 2 writes it (name and autoload of each package; the rest left out).
  const psr4 = (name: string, namespace: string) => ({ name, version: 'v5.4.0', autoload: { 'psr-4': { [`${namespace}\\`]: '' } } });
  const component = (n: string, ns: string) => psr4(`symfony/${n}`, `Symfony\\Component\\${ns}`);
  fs.mkdirSync(path.join(root, 'vendor/composer'), { recursive: true });
  fs.writeFileSync(path.join(root, 'vendor/composer/installed.json'), JSON.stringify({ packages: [
    psr4('psr/container', 'Psr\\Container'), psr4('psr/log', 'Psr\\Log'),
    { name: 'symfony/deprecation-contracts', version: 'v2.5.2', autoload: { files: ['function.php'] } },
    psr4('symfony/polyfill-mbstring', 'Symfony\\Polyfill\\Mbstring'), psr4('symfony/polyfill-php73', 'Symfony\\Polyfill\\Php73'),
    psr4('symfony/polyfill-php80', 'Symfony\\Polyfill\\Php80'), psr4('symfony/service-contracts', 'Symfony\\Contracts\\Service'),
    psr4('symfony/event-dispatcher-contracts', 'Symfony\\Contracts\\EventDispatcher'), component('string', 'String'),
    component('config', 'Config'), component('event-dispatcher', 'EventDispatcher'), component('dependency-injection', 'DependencyInjection'),
    component('lock', 'Lock'), component('process', 'Process'), component('var-dumper', 'VarDumper'),
  ], dev: true, 'dev-package-names': [] }, null, 2));
  const deps = Object.fromEntries((await dependenciesOf(root)).map((d: { name: string; files: number }) => [d.name, d.files]));
  assert.equal(deps['symfony/service-contracts'], 2, JSON.stringify(deps)); // Application.php, Formatter/OutputFormatterStyleStack.php
  assert.equal(deps['symfony/event-dispatcher-contracts'], 2, JSON.stringify(deps)); // Application.php, Event/ConsoleEvent.php
  assert.equal(deps['psr/container'], 1, JSON.stringify(deps)); // CommandLoader/ContainerCommandLoader.php
  assert.equal(deps['Symfony\\Contracts'], undefined, JSON.stringify(deps));
});

/**
 * Most projects commit composer.lock, not vendor/: it lists the same packages (`packages`, `packages-dev`) with the
 * same `name` and `autoload`, and was skipped as a generated file. symfony/console 5.4.53 with a composer.lock whose
 * entries copy those packages' own composer.json `name` and `autoload` (no lock file ships in a package on this
 * machine): before, `Symfony\Contracts\Service` and `Symfony\Contracts\EventDispatcher` were one made-up
 * `Symfony\Contracts`.
 */
test('blueprint dependencies: a PHP namespace belongs to the package composer.lock lists (symfony/console)', async () => {
  const root = symfonyConsole();
  const entry = (name: string, version: string, autoload: unknown) => ({ name, version, type: 'library', autoload });
  fs.writeFileSync(path.join(root, 'composer.lock'), JSON.stringify({
    '_readme': ['This file locks the dependencies of your project to a known state'],
    'content-hash': '',
    packages: [
      entry('psr/container', '1.1.2', { 'psr-4': { 'Psr\\Container\\': 'src/' } }),
      entry('symfony/service-contracts', 'v2.5.2', { 'psr-4': { 'Symfony\\Contracts\\Service\\': '' }, 'exclude-from-classmap': ['/Test/'] }),
    ],
    'packages-dev': [
      entry('symfony/event-dispatcher-contracts', 'v2.5.2', { 'psr-4': { 'Symfony\\Contracts\\EventDispatcher\\': '' } }),
    ],
  }, null, 4));
  const deps = Object.fromEntries((await dependenciesOf(root)).map((d: { name: string; files: number }) => [d.name, d.files]));
  assert.equal(deps['symfony/service-contracts'], 2, JSON.stringify(deps));
  assert.equal(deps['symfony/event-dispatcher-contracts'], 2, JSON.stringify(deps));
  assert.equal(deps['psr/container'], 1, JSON.stringify(deps));
  assert.equal(deps['Symfony\\Contracts'], undefined, JSON.stringify(deps));
});

// league/config's own requirements, installed beside it: nette/schema (a classmap, no namespace in its autoload) is
// named by the namespace that spells it, dflydev/dot-access-data by its PSR-4 namespace.
test('blueprint dependencies: a used but undeclared package that installed.json lists is named as Composer names it (commonmark)', async () => {
  const deps = Object.fromEntries((await dependenciesOf(commonmark({ packages: [
    { name: 'dflydev/dot-access-data', version: 'v3.0.2', autoload: { 'psr-4': { 'Dflydev\\DotAccessData\\': 'src/' } } },
    { name: 'league/config', version: 'v1.2.0', autoload: { 'psr-4': { 'League\\Config\\': 'src' } } },
    { name: 'nette/schema', version: 'v1.2.3', autoload: { classmap: ['src/'] } },
    { name: 'nette/utils', version: 'v3.2.9', autoload: { classmap: ['src/'] } },
  ] }))).map((d: { name: string; files: number }) => [d.name, d.files]));
  assert.equal(deps['nette/schema'], 14, JSON.stringify(deps));
  assert.equal(deps['dflydev/dot-access-data'], 1, JSON.stringify(deps)); // src/Node/Node.php: `use Dflydev\DotAccessData\Data`
  assert.ok(deps['league/config'] >= 40, JSON.stringify(deps));
  for (const gone of ['Nette\\Schema', 'Dflydev\\DotAccessData']) assert.equal(deps[gone], undefined, gone);
});

/**
 * Python imports a module; the distribution is the declared one whose normalized name is the module's, or that
 * module behind a `python-` prefix. flask 2.2.2 (Debian's copy under src/, with upstream's pyproject.toml
 * dependencies): before, Werkzeug, Jinja2 and importlib-metadata were "imported by 0 files" beside undeclared
 * `werkzeug` (14 files), `jinja2` and `importlib_metadata`, and python-dotenv beside `dotenv`.
 */
test('blueprint dependencies: a Python module belongs to the declared distribution it names (flask)', async () => {
  const root = tempDir('loupe-py-');
  fs.cpSync(path.join(debianPackage('python3-flask', '2.2.2-3'), 'usr/lib/python3/dist-packages/flask'), path.join(root, 'src/flask'), { recursive: true });
  fs.writeFileSync(path.join(root, 'pyproject.toml'), [
    '[project]', 'name = "Flask"', 'dependencies = [',
    '    "Werkzeug>=2.2.2",', '    "Jinja2>=3.0",', '    "itsdangerous>=2.0",', '    "click>=8.0",', '    "importlib-metadata>=3.6.0; python_version < \'3.10\'",', ']',
    '', '[project.optional-dependencies]', 'async = ["asgiref>=3.2"]', 'dotenv = ["python-dotenv"]', '',
  ].join('\n'));
  const deps = Object.fromEntries((await dependenciesOf(root)).map((d: { name: string; files: number; version: string | null }) => [d.name, [d.files, d.version]]));
  assert.deepEqual(deps.Werkzeug, [14, '>=2.2.2'], JSON.stringify(deps));
  assert.deepEqual(deps.Jinja2, [3, '>=3.0'], JSON.stringify(deps));
  assert.deepEqual(deps['importlib-metadata'], [1, '>=3.6.0'], JSON.stringify(deps));
  assert.equal(deps['python-dotenv'][0], 1, JSON.stringify(deps));
  for (const gone of ['werkzeug', 'jinja2', 'importlib_metadata', 'dotenv']) assert.equal(deps[gone], undefined, gone);
  // Used, undeclared (Werkzeug's and Jinja2's own requirements): under the module's name.
  assert.equal(deps.markupsafe[0], 2, JSON.stringify(deps));
});

/**
 * Cargo gives rustc only the crates a Cargo.toml declares: tokio 1.24.2 (Debian) `use State::*` (a local enum's
 * variants), `use imp::…` (a module chosen by cfg) and `use TryCurrentErrorKind::*` named items in scope, listed
 * before as the dependencies `State`, `imp`, `TryCurrentErrorKind`, `chan`, `sealed`… beside the declared crates.
 */
test('blueprint dependencies: a Rust path names a dependency only when Cargo.toml declares it (tokio)', async () => {
  const root = copyOf(within(debianPackage('librust-tokio-dev', '1.24.2-1'), 'usr/share/cargo/registry/tokio-*'), 'loupe-rust-');
  const deps = await dependenciesOf(root);
  assert.deepEqual(deps.filter((d) => d.version === null).map((d) => d.name), [], 'every dependency is a declared crate');
  assert.ok(deps.find((d) => d.name === 'pin-project-lite')!.files >= 30, JSON.stringify(deps));
});
