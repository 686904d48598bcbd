import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { parseManifest } from '../../server/engine/analysis/manifests';
import { detectLanguageOf } from '../../server/engine/indexer/languages';
import { createTestEngine, indexFolder, tempDir, type TestEngine } from '../helpers/engine';
import { debianPackage, npmPackage, within } from '../helpers/real-code';

/** Manifests and blueprints of projects outside TypeScript, on real manifests and code (Debian, npm). */
let t: TestEngine;
before(() => { t = createTestEngine(); });
after(() => t.close());

const deps = (file: string, text: string) =>
  parseManifest(file, text)!.dependencies.map((d) => `${d.type}:${d.name}@${d.version ?? '*'}`);

test('real manifests are read for what they declare: Cargo.toml, gemspec, csproj', () => {
  const tokio = fs.readFileSync(within(debianPackage('librust-tokio-dev', '1.24.2-1'), 'usr/share/cargo/registry/tokio-*/Cargo.toml'), 'utf8');
  const cargo = deps('Cargo.toml', tokio);
  // [dependencies.tokio-macros] optional; [target."cfg(unix)".dependencies.libc]; [dev-dependencies.tokio-test].
  for (const d of ['optional:tokio-macros@1.7.0', 'optional:libc@0.2.42', 'dev:tokio-test@0.4.0', 'optional:bytes@1.0.0']) assert.ok(cargo.includes(d), `${d} in ${cargo.join(', ')}`);
  assert.equal(parseManifest('Cargo.toml', tokio)!.name, 'tokio');

  const specs = path.join(debianPackage('ruby-rack', '2.2.22-0+deb12u1'), 'usr/share/rubygems-integration/all/specifications');
  const rack = parseManifest('rack.gemspec', fs.readFileSync(within(specs, 'rack-*.gemspec'), 'utf8'))!;
  assert.equal(rack.name, 'rack');
  assert.deepEqual(rack.entries, [{ name: 'rackup', kind: 'path', target: 'bin/rackup' }]);
  assert.ok(rack.dependencies.some((d) => d.name === 'minitest' && d.type === 'dev'), JSON.stringify(rack.dependencies));
  const nanocSpecs = path.join(debianPackage('ruby-nanoc-core', '4.12.14-3'), 'usr/share/rubygems-integration/all/specifications');
  const nanoc = deps('nanoc-core.gemspec', fs.readFileSync(within(nanocSpecs, 'nanoc-core-*.gemspec'), 'utf8'));
  for (const d of ['package:zeitwerk@~> 2.1', 'package:memo_wise@~> 1.5']) assert.ok(nanoc.includes(d), `${d} in ${nanoc.join(', ')}`);

  const rnw = npmPackage('react-native-windows@0.76.9');
  const codegen = parseManifest('Microsoft.ReactNative.Managed.CodeGen.csproj',
    fs.readFileSync(path.join(rnw, 'Microsoft.ReactNative.Managed.CodeGen/Microsoft.ReactNative.Managed.CodeGen.csproj'), 'utf8'))!;
  assert.ok(codegen.dependencies.some((d) => d.name === 'Microsoft.CodeAnalysis.CSharp'), JSON.stringify(codegen.dependencies));
  assert.deepEqual(codegen.entries.map((e) => e.kind), ['project']); // <OutputType>Exe</OutputType>
});

test('manifest formats: pyproject scripts and groups, setup.cfg, build.gradle, pom main class, go.mod, workspace Cargo', () => {
  const py = parseManifest('pyproject.toml', [
    '[project]', 'name = "svc"', 'description = "A service."', 'dependencies = ["fastapi>=0.110", "uvicorn[standard]; python_version >= \'3.9\'"]',
    '[project.optional-dependencies]', 'redis = ["redis>=5"]', '[project.scripts]', 'svc = "svc.cli:main"',
    '[dependency-groups]', 'test = ["pytest>=8"]',
  ].join('\n'))!;
  assert.deepEqual(py.dependencies.map((d) => `${d.type}:${d.name}@${d.version ?? '*'}`), ['package:fastapi@>=0.110', 'package:uvicorn@*', 'optional:redis@>=5', 'dev:pytest@>=8']);
  assert.deepEqual([py.name, py.description, py.entries], ['svc', 'A service.', [{ name: 'svc', kind: 'python-module', target: 'svc.cli:main' }]]);
  const cfg = parseManifest('setup.cfg', '[metadata]\nname = tool\n\n[options]\ninstall_requires =\n    click>=8\n    requests\n\n[options.entry_points]\nconsole_scripts =\n    tool = tool.__main__:run\n')!;
  assert.deepEqual([cfg.name, cfg.dependencies.map((d) => d.name), cfg.entries.map((e) => e.target)], ['tool', ['click', 'requests'], ['tool.__main__:run']]);
  assert.deepEqual(deps('build.gradle.kts', 'dependencies {\n  implementation("com.google.guava:guava:33.0.0-jre")\n  testImplementation("junit:junit:4.13.2")\n}\napplication { mainClass.set("com.acme.App") }\n'),
    ['package:com.google.guava:guava@33.0.0-jre', 'dev:junit:junit@4.13.2']);
  const pom = parseManifest('pom.xml', '<project><name>app</name><dependencies><dependency><groupId>g</groupId><artifactId>a</artifactId><version>1</version></dependency></dependencies><build><plugins><plugin><configuration><archive><manifest><mainClass>com.acme.Main</mainClass></manifest></archive></configuration></plugin></plugins></build></project>')!;
  assert.deepEqual([pom.name, pom.entries], ['app', [{ name: 'Main', kind: 'java-class', target: 'com.acme.Main' }]]);
  assert.deepEqual(deps('go.mod', 'module example.com/app // the app\n\nrequire golang.org/x/sync v0.7.0\n'), ['package:golang.org/x/sync@v0.7.0']);
  assert.deepEqual(deps('Cargo.toml', '[workspace]\nmembers = ["a"]\n[workspace.dependencies]\nserde = "1"\n'), ['package:serde@1']);
  assert.deepEqual(deps('Cargo.toml', '[package]\nname = "a"\n[dependencies]\nserde.workspace = true\nrenamed = { package = "real-name", version = "2" }\n'), ['package:serde@*', 'package:real-name@2']);
});

test('a Python blueprint (Flask 2.2.2 from python3-flask, src layout): the declared console script, no standard library, not the project itself', async () => {
  const root = path.join(tempDir('loupe-flask-'), 'flask');
  fs.cpSync(path.join(debianPackage('python3-flask', '2.2.2-3'), 'usr/lib/python3/dist-packages/flask'), path.join(root, 'src', 'flask'), { recursive: true });
  // Flask 2.2.2's own setup.cfg (metadata and entry points; its install_requires live in setup.py).
  fs.writeFileSync(path.join(root, 'setup.cfg'), [
    '[metadata]', 'name = Flask', 'description = A simple framework for building complex web applications.',
    '[options]', 'packages = find:', 'package_dir = = src', 'python_requires = >= 3.7',
    '[options.entry_points]', 'console_scripts =', '    flask = flask.cli:main', '',
  ].join('\n'));
  const repo = await indexFolder(t, root);
  const doc = (await t.engine.analysis.blueprint(repo, { symbolLimit: 0, conventions: false })).documentation;
  const section = (title: string) => doc.split(`## ${title}`)[1]?.split('\n## ')[0] ?? '';
  assert.match(section('Entry points'), /`src\/flask\/cli\.py` \(flask in setup\.cfg\)/);
  assert.match(section('Entry points'), /`src\/flask\/__main__\.py`/);
  const main = section('Main dependencies');
  for (const name of ['__future__', 'os', 'sys', 'typing', 'json', 'flask']) assert.doesNotMatch(main, new RegExp(`\`${name}\``), doc);
  assert.match(main, /`werkzeug`/);
  const dependencies = (await t.engine.analysis.blueprint(repo, { symbolLimit: 0, conventions: false })).dependencies.map((d) => d.name);
  assert.ok(!dependencies.includes('os') && !dependencies.includes('flask'), dependencies.join(', '));
});

test('a README\'s purpose is its first sentence of prose, not a GitHub alert above it (payload 3.64.0\'s README from npm)', async () => {
  const root = path.join(tempDir('loupe-readme-'), 'cms');
  fs.mkdirSync(path.join(root, 'src'), { recursive: true });
  // The README as published (no package.json: the monorepo's root has no description, so the README says what it is).
  fs.copyFileSync(path.join(npmPackage('payload@3.64.0'), 'README.md'), path.join(root, 'README.md'));
  fs.writeFileSync(path.join(root, 'src', 'index.ts'), 'export const version = 3;\n');
  const repo = await indexFolder(t, root);
  const doc = (await t.engine.analysis.blueprint(repo, { symbolLimit: 0, conventions: false })).documentation;
  const purpose = doc.split('\n').find((l) => l && !l.startsWith('#'))!;
  assert.match(purpose, /^Payload is the first-ever Next\.js native CMS/, doc.slice(0, 400));
});

test('a Python blueprint (Werkzeug 2.2.2 from python3-werkzeug): snake_case functions with _private and __dunder__ names among them; _typeshed is no dependency', async () => {
  const root = path.join(tempDir('loupe-werkzeug-'), 'werkzeug');
  fs.cpSync(path.join(debianPackage('python3-werkzeug', '2.2.2-3+deb12u1'), 'usr/lib/python3/dist-packages/werkzeug'), root, { recursive: true });
  const repo = await indexFolder(t, root);
  const blueprint = await t.engine.analysis.blueprint(repo, { symbolLimit: 0, conventions: true });
  const naming = blueprint.conventions!.naming as Record<string, { dominant: string; share: number }>;
  assert.equal(naming.functions.dominant, 'snake_case', JSON.stringify(naming.functions));
  assert.ok(naming.functions.share > 0.9, JSON.stringify(naming.functions));
  assert.equal(naming.file_names.dominant, 'snake_case', JSON.stringify(naming.file_names));
  assert.equal(naming.types.dominant, 'PascalCase', JSON.stringify(naming.types));
  // `from _typeshed.wsgi import WSGIEnvironment` (under TYPE_CHECKING, and in datastructures.pyi): typeshed's, not PyPI's.
  const main = blueprint.documentation.split('## Main dependencies')[1]?.split('\n## ')[0] ?? '';
  assert.doesNotMatch(main, /_typeshed/, main);
  assert.ok(!blueprint.dependencies.some((d) => d.name === '_typeshed'), blueprint.dependencies.map((d) => d.name).join(', '));
});

test('a .h header is C unless its code is C++: Lua\'s headers (liblua5.4-dev) are C, bazel\'s client headers (bazel-bootstrap-source) C++', async () => {
  const root = path.join(tempDir('loupe-lua-'), 'lua5.4');
  fs.cpSync(path.join(debianPackage('liblua5.4-dev', '5.4.4-3+deb12u1'), 'usr/include/lua5.4'), root, { recursive: true });
  const repo = await indexFolder(t, root);
  const language = (file: string) => t.engine.filesStore.getByPath(repo.id, file)!.language;
  assert.deepEqual(['lua.h', 'lauxlib.h', 'lualib.h', 'luaconf.h', 'lua.hpp'].map(language), ['c', 'c', 'c', 'c', 'cpp']);
  const doc = (await t.engine.analysis.blueprint(repo, { symbolLimit: 0, conventions: false })).documentation;
  assert.match(doc, /\| c \| 4 \|/);
  assert.match(doc, /\| cpp \| 1 \|/);
  // Parsed and resolved as before: lua.hpp's `#include "lua.h"`, lua.h's functions.
  const hpp = t.engine.filesStore.getByPath(repo.id, 'lua.hpp')!;
  assert.ok(t.engine.filesStore.imports(hpp.id).some((i) => i.specifier === 'lua.h' && i.targetPath === 'lua.h'));
  assert.ok(t.engine.filesStore.symbols(t.engine.filesStore.getByPath(repo.id, 'lua.h')!.id).some((s) => s.name === 'lua_gettop' && s.kind === 'function'));

  const bazel = path.join(debianPackage('bazel-bootstrap-source', '4.2.3+ds-9'), 'usr/src/bazel-bootstrap/src/main/cpp');
  const headers = fs.readdirSync(bazel).filter((f) => f.endsWith('.h'));
  assert.ok(headers.length > 10);
  assert.deepEqual(headers.filter((f) => detectLanguageOf(f, fs.readFileSync(path.join(bazel, f), 'utf8')) !== 'cpp'), []);
});
