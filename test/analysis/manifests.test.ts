import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseManifest } from '../../server/engine/analysis/manifests';
import { styleOf } from '../../server/engine/analysis/conventions';
import { decisionPoints, exportedNames, findUsages } from '../../server/engine/analysis/references';

const deps = (file: string, text: string) =>
  parseManifest(file, text)!.dependencies.map((d) => `${d.type}:${d.name}@${d.version ?? '*'}`);

test('manifests of each ecosystem give their dependencies and build/test commands', () => {
  assert.deepEqual(deps('pyproject.toml', '[project]\nname = "svc"\ndependencies = [\n  "fastapi>=0.110",\n  "uvicorn[standard]",\n]\n\n[tool.poetry.group.dev.dependencies]\npytest = "^8"\n'),
    ['package:fastapi@>=0.110', 'package:uvicorn@*', 'dev:pytest@^8']);
  assert.deepEqual(deps('requirements.txt', '# pinned\nrequests==2.32.0\nflask[async] >= 3\n-r other.txt\n'), ['package:requests@==2.32.0', 'package:flask@>= 3']);
  assert.deepEqual(deps('go.mod', 'module example.com/app\n\ngo 1.22\n\nrequire (\n\tgithub.com/spf13/cobra v1.8.0\n\tgolang.org/x/sys v0.20.0 // indirect\n)\n'),
    ['package:github.com/spf13/cobra@v1.8.0', 'optional:golang.org/x/sys@v0.20.0']);
  assert.deepEqual(deps('Cargo.toml', '[package]\nname = "tool"\n\n[dependencies]\nserde = { version = "1.0", features = ["derive"] }\nanyhow = "1"\n\n[dev-dependencies]\ntempfile = "3"\n'),
    ['package:serde@1.0', 'package:anyhow@1', 'dev:tempfile@3']);
  assert.deepEqual(deps('pom.xml', '<project><dependencies><dependency><groupId>org.slf4j</groupId><artifactId>slf4j-api</artifactId><version>2.0.13</version></dependency><dependency><groupId>junit</groupId><artifactId>junit</artifactId><version>4.13.2</version><scope>test</scope></dependency></dependencies></project>'),
    ['package:org.slf4j:slf4j-api@2.0.13', 'dev:junit:junit@4.13.2']);
  assert.deepEqual(deps('src/App.csproj', '<Project><ItemGroup><PackageReference Include="Newtonsoft.Json" Version="13.0.3" /></ItemGroup></Project>'), ['package:Newtonsoft.Json@13.0.3']);
  assert.deepEqual(deps('Gemfile', "source 'https://rubygems.org'\ngem 'rails', '~> 7.1'\ngem \"puma\"\n"), ['package:rails@~> 7.1', 'package:puma@*']);
  // Composer's platform packages (php, ext-*, lib-*) are requirements of the machine, not packages.
  assert.deepEqual(deps('composer.json', '{"require": {"php": ">=8.1", "ext-mbstring": "*", "monolog/monolog": "^3"}, "require-dev": {"phpunit/phpunit": "^10", "lib-libxml": "*"}}'),
    ['package:monolog/monolog@^3', 'dev:phpunit/phpunit@^10']);
  const npm = parseManifest('package.json', '{"name":"x","scripts":{"build":"tsc","build:web":"vite","test":"node --test","lint":"eslint ."},"peerDependencies":{"react":"^18"}}')!;
  assert.deepEqual(npm.commands, { build: ['npm run build', 'npm run build:web'], test: ['npm test'] });
  assert.deepEqual(npm.dependencies.map((d) => `${d.type}:${d.name}`), ['peer:react']);
  assert.equal(parseManifest('package.json', '{ not json'), null);
});

test('naming styles, decision points, exported names and usages', () => {
  assert.deepEqual(['fooBar', 'FooBar', 'foo_bar', 'FOO_BAR', 'foo-bar', 'foo', 'Foo_bar'].map(styleOf),
    ['camelCase', 'PascalCase', 'snake_case', 'UPPER_SNAKE', 'kebab-case', 'lowercase', 'other']);
  // Underscores around a name mark visibility or a special name (Python's `_private`, `__init__`), not a style.
  assert.deepEqual(['_private', '__init__', '_helper_fn', '_Base', '__all__', '_', '__'].map(styleOf),
    ['lowercase', 'lowercase', 'snake_case', 'PascalCase', 'lowercase', 'other', 'other']);
  assert.equal(decisionPoints("if (a && b) { for (;;) {} } // if while\nconst s = 'if';\nx ?? y;"), 4);
  assert.deepEqual([...exportedNames('a.ts', 'export function f() {}\nexport const a = 1, b = 2;\nexport { c as d };\nexport * from "./x";\nexport default 1;')].sort(),
    ['* from ./x', 'a', 'b', 'd', 'default', 'f']);
  assert.deepEqual([...exportedNames('a.cjs', 'exports.one = 1;\nmodule.exports.two = function () {};')].sort(), ['one', 'two']);
  const usages = findUsages('c.ts', [
    "import def, { a, b as bee, type T } from './m';",
    "import * as ns from './m';",
    "const m2 = require('./m');",
    'export class K { run(x: T) { a(); new bee(); return ns.c + m2.d(); } }',
    "export { a as again } from './m';",
  ].join('\n'), new Set(['./m']));
  assert.deepEqual(usages.map((u) => `${u.importedName}:${u.kind}:${u.enclosing}`).sort(), [
    'T:type:K.run', 'a:call:K.run', 'a:reexport:null', 'b:new:K.run', 'c:read:K.run', 'd:call:K.run',
  ]);
});
