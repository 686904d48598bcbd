import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { copyFixture, createTestEngine, indexFolder, type TestEngine } from '../helpers/engine';

/**
 * One small project per language in test/fixtures/polyglot, whose files import each other. Each entry is
 * what the index must hold for a file: description, symbols (`kind parent.name start-end [exported]`)
 * and import edges (`[kind, specifier, target path or package name]`).
 */
const EXPECTED: Record<string, { description: string | null; symbols: string[]; imports: [string, string, string | null][] }> = {
  'py/src/shop/__init__.py': {
    description: 'A tiny shop: items, carts and prices.',
    symbols: ['variable __all__ 5-5', 'constant VERSION 7-7 exported'],
    imports: [['export', '.models', 'py/src/shop/models.py']],
  },
  'py/src/shop/cart.py': {
    description: null,
    symbols: ['class Cart 7-20 exported', 'method Cart.__init__ 13-14 exported', 'method Cart.add 16-17 exported', 'method Cart.to_json 19-20 exported'],
    // `from shop.pricing import total` runs shop/__init__.py first (stored once per file); `from . import models` binds a submodule.
    imports: [
      ['import', 'json', 'json'],
      ['import', 'shop', 'py/src/shop/__init__.py'],
      ['import', 'shop.pricing', 'py/src/shop/pricing.py'],
      ['import', '.', 'py/src/shop/__init__.py'],
      ['import', '.models', 'py/src/shop/models.py'],
      ['import', '.models', 'py/src/shop/models.py'],
    ],
  },
  'py/src/shop/models.py': {
    description: 'Data classes for the shop.',
    symbols: ['class Item 5-17 exported', 'property Item.sku 9-9 exported', 'property Item.price_cents 10-10 exported', 'method Item.label 12-14 exported', 'method Item._check 16-17'],
    imports: [['import', 'dataclasses', 'dataclasses']],
  },
  'py/src/shop/pricing.py': {
    description: 'Price arithmetic kept apart from the cart.',
    symbols: ['constant TAX_RATE 7-7 exported', 'variable _rounding 8-8', 'function total 11-14 exported', 'function _round 17-20'],
    imports: [['import', 'typing', 'typing'], ['import', '.', 'py/src/shop/__init__.py'], ['import', '.models', 'py/src/shop/models.py']],
  },
  'py/tests/test_cart.py': {
    description: null,
    symbols: ['function test_total 6-9 exported'],
    imports: [
      ['import', 'shop', 'py/src/shop/__init__.py'],
      ['import', 'shop.cart', 'py/src/shop/cart.py'],
      ['import', 'shop.models', 'py/src/shop/models.py'],
      ['import', 'shop.pricing', 'py/src/shop/pricing.py'],
      ['import', 'pytest', 'pytest'],
    ],
  },
  'go/main.go': {
    description: 'Command inventory prints the stock of a small warehouse.',
    symbols: ['function main 11-15'],
    imports: [
      ['import', 'fmt', 'fmt'],
      ['import', 'example.com/inventory/internal/ids', 'go/internal/ids/ids.go'],
      ['import', 'example.com/inventory/store', 'go/store/store.go'],
    ],
  },
  'go/store/store.go': {
    description: 'Package store keeps item counts in memory.',
    symbols: [
      'constant MaxItems 7-7 exported', 'variable defaultName 9-9', 'interface Counter 12-14 exported', 'method Counter.Count 13-13 exported',
      'struct Store 17-20 exported', 'function New 23-25 exported', 'method Store.Add 28-32 exported', 'method Store.Count 34-36 exported',
      'method Store.reset 38-40',
    ],
    imports: [['import', 'sync', 'sync']],
  },
  'go/internal/ids/ids.go': {
    description: null,
    symbols: ['variable next 5-5', 'function Next 8-11 exported'],
    imports: [['import', 'strconv', 'strconv']],
  },
  'rust/src/main.rs': {
    description: 'A small tokenizer command.',
    symbols: ['constant VERSION 13-13', 'function main 15-22'],
    imports: [
      ['use', 'alloc', 'alloc'],
      ['import', 'config', 'rust/src/config.rs'],
      ['import', 'engine', 'rust/src/engine/mod.rs'],
      ['use', 'std::io', 'std'],
      ['use', 'crate::engine', 'rust/src/engine/mod.rs'],
      ['use', 'config', 'rust/src/config.rs'],
    ],
  },
  'rust/src/config.rs': {
    description: null,
    symbols: ['struct Config 2-5 exported', 'constant DEFAULT_SEPARATOR 7-7 exported'],
    imports: [],
  },
  'rust/src/engine/mod.rs': {
    description: null,
    symbols: [
      'struct Engine 7-9 exported', 'trait Tokenize 12-15 exported', 'method Tokenize.tokens 14-14 exported', 'method Engine.new 19-21 exported',
      'method Engine.run 23-25 exported', 'method Engine.normalize 27-29', 'method Engine.tokens 33-35 exported',
    ],
    imports: [
      ['import', 'parser', 'rust/src/engine/parser.rs'],
      ['use', 'self::parser', 'rust/src/engine/parser.rs'],
      ['use', 'super::config', 'rust/src/config.rs'],
    ],
  },
  'rust/src/engine/parser.rs': {
    description: null,
    symbols: ['enum Token 4-8 exported', 'function split 11-13 exported', 'function classify 15-17'],
    imports: [['use', 'crate::config', 'rust/src/config.rs']],
  },
  'java/src/main/java/com/acme/app/Main.java': {
    description: 'Entry point of the Acme command line.',
    symbols: ['class Main 9-17 exported', 'method Main.main 10-12 exported', 'property Main.count 14-14', 'enum Main.Mode 16-16'],
    imports: [
      ['import', 'com.acme.util.Strings', 'java/src/main/java/com/acme/util/Strings.java'],
      ['import', 'java.util.List', 'java.util'],
      ['import', 'java.io', 'java.io'],
      ['import', 'com.acme.util.Strings.join', 'java/src/main/java/com/acme/util/Strings.java'],
    ],
  },
  'java/src/main/java/com/acme/util/Strings.java': {
    description: 'String helpers shared by the Acme apps.',
    symbols: [
      'class Strings 11-33 exported', 'constant Strings.SEPARATOR 13-13 exported', 'method Strings.Strings 15-15', 'method Strings.join 21-23 exported',
      'method Strings.isBlank 25-27', 'interface Strings.Formatter 30-32 exported', 'method Formatter.format 31-31 exported',
    ],
    imports: [['import', 'java.util.List', 'java.util']],
  },
  'csharp/Acme.App/Program.cs': {
    description: 'Prints areas.',
    symbols: ['class Program 9-16 exported', 'method Program.Main 11-15 exported'],
    imports: [
      ['use', 'System', 'System'],
      ['use', 'System.Collections.Generic', 'System.Collections.Generic'],
      // A namespace is no edge by itself; the types used from it are (C# name lookup across files).
      ['use', 'Acme.Core.Geometry', null],
      ['use', 'Acme.Core.Geometry.Circle', 'csharp/Acme.Core/Geometry/Shapes.cs'],
      ['reference', 'Acme.Core.Geometry.IShape', 'csharp/Acme.Core/Geometry/Shapes.cs'],
      ['reference', 'Acme.Core.Geometry.Circle', 'csharp/Acme.Core/Geometry/Shapes.cs'],
    ],
  },
  'csharp/Acme.Core/Geometry/Shapes.cs': {
    description: 'Geometric shapes with areas.',
    symbols: [
      'interface IShape 7-10 exported', 'method IShape.Area 9-9 exported', 'class Circle 15-24 exported', 'property Circle.Radius 17-17 exported',
      'method Circle.Circle 19-19 exported', 'method Circle.Area 21-21 exported', 'method Circle.Square 23-23', 'struct Point 26-29',
      'property Point.X 28-28 exported', 'enum Unit 31-31 exported',
    ],
    imports: [['use', 'System', 'System']],
  },
  'cpp/include/mathx/vec.hpp': {
    description: 'Small 2D vector math.',
    symbols: [
      'namespace mathx 5-27 exported', 'struct Vec2 8-11 exported', 'property Vec2.x 9-9 exported', 'property Vec2.y 9-9 exported', 'method Vec2.length 10-10 exported', 'class Accumulator 14-23 exported',
      'method Accumulator.Accumulator 16-16 exported', 'method Accumulator.add 17-17 exported', 'method Accumulator.sum 18-18 exported',
      'property Accumulator.total_ 21-21', 'method Accumulator.reset 22-22', 'function dot 25-25 exported',
    ],
    imports: [['include', '<cmath>', 'cmath']],
  },
  'cpp/src/vec.cpp': {
    description: null,
    symbols: ['namespace mathx 5-18 exported', 'method Vec2.length 7-7 exported', 'method Accumulator.Accumulator 9-9 exported', 'method Accumulator.add 11-14 exported', 'function dot 16-16 exported'],
    imports: [
      ['include', 'mathx/vec.hpp', 'cpp/include/mathx/vec.hpp'],
      ['include', 'util.h', 'cpp/src/util.h'],
      ['include', '<vector>', 'vector'],
    ],
  },
  'cpp/src/util.h': {
    description: null,
    symbols: [
      'constant CLAMP_MAX 4-4 exported', 'function clamp 7-7 exported', 'struct Size 9-12 exported', 'property Size.width 10-10 exported',
      'property Size.height 11-11 exported', 'constant default_width 14-14 exported',
    ],
    imports: [],
  },
  'cpp/src/main.c': {
    description: 'Prints a clamped value.',
    symbols: ['constant default_width 6-6 exported', 'variable calls 7-7', 'function twice 9-9', 'function clamp 11-14 exported', 'function main 16-19 exported'],
    imports: [['include', '<stdio.h>', 'stdio.h'], ['include', 'util.h', 'cpp/src/util.h'], ['include', 'missing/gone.h', null]],
  },
  'ruby/lib/ledger.rb': {
    description: 'Ledger keeps a list of money entries and reports on them.',
    symbols: ['module Ledger 7-14 exported', 'constant Ledger.VERSION 8-8 exported', 'method Ledger.parse 11-13 exported'],
    imports: [['require', 'json', 'json'], ['require-relative', 'ledger/entry', 'ruby/lib/ledger/entry.rb']],
  },
  'ruby/lib/ledger/entry.rb': {
    description: null,
    symbols: [
      'module Ledger 1-24 exported', 'class Ledger.Entry 3-23 exported', 'method Entry.initialize 6-9 exported', 'method Entry.credit? 12-14 exported',
      'method Entry.to_s 16-16 exported', 'method Entry.cents 20-22',
    ],
    imports: [],
  },
  'ruby/bin/report.rb': {
    description: null,
    symbols: ['function report 5-7 exported'],
    imports: [['require', 'ledger', 'ruby/lib/ledger.rb'], ['require-relative', '../lib/ledger/entry', 'ruby/lib/ledger/entry.rb']],
  },
  'php/public/index.php': {
    description: 'Front controller.',
    symbols: [],
    imports: [
      ['require', '__DIR__/../vendor/autoload.php', null],
      ['require', '__DIR__/../src/helpers.php', 'php/src/helpers.php'],
      ['include', 'partials/header.php', null],
      ['use', 'App\\Service\\UserService', 'php/src/Service/UserService.php'],
    ],
  },
  'php/src/Models/User.php': {
    description: 'A registered user.',
    symbols: [
      'class User 8-29 exported', 'constant User.ROLE_ADMIN 10-10 exported', 'property User.email 12-12', 'method User.__construct 14-17 exported',
      'method User.email 20-23 exported', 'method User.normalize 25-28',
    ],
    imports: [],
  },
  'php/src/Service/UserService.php': {
    description: null,
    symbols: [
      'interface Finder 10-13 exported', 'method Finder.find 12-12 exported', 'class UserService 15-24 exported',
      'method UserService.__construct 17-17 exported', 'method UserService.find 19-23 exported',
    ],
    imports: [['use', 'App\\Models\\User', 'php/src/Models/User.php'], ['use', 'Psr\\Log\\LoggerInterface', 'Psr\\Log']],
  },
  'php/src/helpers.php': {
    description: 'Helpers loaded by the front controller.',
    symbols: ['constant APP_NAME 4-4 exported', 'function greet 6-9 exported'],
    imports: [],
  },
};

// One engine for the file: its parse workers and their grammars are loaded once, as in a running server.
let t: TestEngine;
before(() => { t = createTestEngine(); });
after(() => t.close());

function fileFacts(repoId: string, relPath: string) {
  const file = t.engine.filesStore.getByPath(repoId, relPath);
  assert.ok(file, `${relPath} is indexed`);
  const symbols = t.engine.filesStore.symbols(file.id);
  return {
    file,
    symbols,
    facts: {
      description: file.description,
      symbols: symbols.map((s) => `${s.kind} ${s.parent ? `${s.parent}.` : ''}${s.name} ${s.startLine}-${s.endLine}${s.exported ? ' exported' : ''}`),
      imports: t.engine.filesStore.imports(file.id).map((i): [string, string, string | null] => [i.kind, i.specifier, i.targetPath ?? i.packageName]),
    },
  };
}

test('indexes symbols, imports and descriptions of every tree-sitter language (parse workers)', async () => {
  const folder = copyFixture('polyglot');
  const repo = await indexFolder(t, folder);
  assert.equal(repo.state, 'ready');
  for (const [relPath, expected] of Object.entries(EXPECTED)) {
    assert.deepEqual(fileFacts(repo.id, relPath).facts, expected, relPath);
  }
  assert.equal(t.engine.filesStore.getByPath(repo.id, 'cpp/src/main.c')!.language, 'c');

  // Docs and signatures, one per language family.
  const doc = (relPath: string, name: string) => {
    const s = fileFacts(repo.id, relPath).symbols.find((x) => x.name === name)!;
    return [s.signature, s.doc];
  };
  assert.deepEqual(doc('py/src/shop/cart.py', 'Cart'), ['class Cart', 'A shopping cart.\n\nHolds items until checkout.']);
  assert.deepEqual(doc('py/src/shop/models.py', 'label'), ['def label(self) -> str', 'A human-readable label.']);
  assert.deepEqual(doc('go/store/store.go', 'Add'), ['func (s *Store) Add(id string, n int)', 'Add adds n of item id.']);
  assert.deepEqual(doc('go/store/store.go', 'MaxItems'), ['const MaxItems = 1000', 'MaxItems bounds how many distinct items a store holds.']);
  assert.deepEqual(doc('rust/src/config.rs', 'Config'), ['pub struct Config', 'Settings for the engine.']);
  assert.deepEqual(doc('rust/src/engine/mod.rs', 'new'), ['pub fn new(config: Config) -> Self', 'Makes an engine.']);
  assert.deepEqual(doc('java/src/main/java/com/acme/util/Strings.java', 'join'), ['public static String join(List<String> parts)', 'Joins parts with the separator.\n@param parts the parts']);
  assert.deepEqual(doc('csharp/Acme.Core/Geometry/Shapes.cs', 'Circle'), ['public class Circle : IShape', 'A circle of a given radius.']);
  assert.deepEqual(doc('cpp/src/util.h', 'clamp'), ['int clamp(int v)', 'Clamps v to [0, CLAMP_MAX].']);
  assert.deepEqual(doc('cpp/src/vec.cpp', 'length'), ['double Vec2::length() const', null]);
  assert.deepEqual(doc('ruby/lib/ledger/entry.rb', 'Entry'), ['class Entry', 'One line of the ledger.']);
  assert.deepEqual(doc('php/src/Models/User.php', 'email'), ['private string $email', null]);

  // Type-only imports: Python's `if TYPE_CHECKING:` block.
  const pricing = t.engine.filesStore.getByPath(repo.id, 'py/src/shop/pricing.py')!;
  assert.deepEqual(t.engine.filesStore.imports(pricing.id).map((i) => [i.specifier, i.typeOnly, i.names]), [
    ['typing', false, ['TYPE_CHECKING', 'Iterable']],
    ['.', true, []],
    ['.models', true, ['Item']],
  ]);
});

test('imports that did not resolve are linked when their file appears, and unlinked when it goes', async () => {
  const folder = copyFixture('polyglot');
  const repo = await indexFolder(t, folder);
  const edges = (relPath: string) => fileFacts(repo.id, relPath).facts.imports;
  fs.writeFileSync(path.join(folder, 'py/src/shop/cart.py'), 'from .discounts import rate\n');
  fs.appendFileSync(path.join(folder, 'rust/src/main.rs'), 'mod later;\n');
  await t.engine.indexer.updatePaths(repo, ['py/src/shop/cart.py', 'rust/src/main.rs']);
  // Python imports the package (`shop`) before it fails to find the module in it.
  assert.deepEqual(edges('py/src/shop/cart.py'), [['import', '.', 'py/src/shop/__init__.py'], ['import', '.discounts', null]]);

  fs.writeFileSync(path.join(folder, 'py/src/shop/discounts.py'), 'rate = 0.1\n');
  fs.writeFileSync(path.join(folder, 'rust/src/later.rs'), 'pub fn soon() {}\n');
  fs.mkdirSync(path.join(folder, 'cpp/src/missing'));
  fs.writeFileSync(path.join(folder, 'cpp/src/missing/gone.h'), 'int back(void);\n');
  fs.rmSync(path.join(folder, 'ruby/lib/ledger/entry.rb'));
  const result = await t.engine.indexer.indexRepository(repo);
  assert.deepEqual([result.added, result.removed], [3, 1]);
  assert.deepEqual(edges('py/src/shop/cart.py'), [['import', '.', 'py/src/shop/__init__.py'], ['import', '.discounts', 'py/src/shop/discounts.py']]);
  assert.deepEqual(edges('rust/src/main.rs').find((e) => e[1] === 'later'), ['import', 'later', 'rust/src/later.rs']);
  assert.deepEqual(edges('cpp/src/main.c')[2], ['include', 'missing/gone.h', 'cpp/src/missing/gone.h']);
  // require_relative is resolved again as require_relative (by its kind), and the file is gone.
  assert.deepEqual(edges('ruby/lib/ledger.rb'), [['require', 'json', 'json'], ['require-relative', 'ledger/entry', null]]);
  assert.deepEqual(edges('ruby/bin/report.rb'), [['require', 'ledger', 'ruby/lib/ledger.rb'], ['require-relative', '../lib/ledger/entry', null]]);
});

test('imports never resolve outside the repository', async () => {
  const outside = copyFixture('polyglot');
  const folder = copyFixture('polyglot');
  // Real files outside the root that the specifiers below would reach if they were followed.
  fs.writeFileSync(path.join(path.dirname(folder), 'secret.h'), 'int secret;\n');
  fs.writeFileSync(path.join(path.dirname(folder), 'secret.php'), '<?php\n');
  fs.symlinkSync(path.join(outside, 'py', 'src', 'shop'), path.join(folder, 'py', 'linked'));
  fs.writeFileSync(path.join(folder, 'cpp/src/escape.c'), '#include "../../../secret.h"\n#include "/etc/hostname"\n');
  fs.writeFileSync(path.join(folder, 'php/escape.php'), "<?php\nrequire __DIR__ . '/../../secret.php';\nrequire '/etc/hostname';\n");
  fs.writeFileSync(path.join(folder, 'py/escape.py'), 'from .... import secret\nfrom linked import models\n');
  const repo = await indexFolder(t, folder);
  const edges = (relPath: string) => fileFacts(repo.id, relPath).facts.imports;
  assert.deepEqual(edges('cpp/src/escape.c'), [['include', '../../../secret.h', null], ['include', '/etc/hostname', null]]);
  assert.deepEqual(edges('php/escape.php'), [['require', '__DIR__/../../secret.php', null], ['require', '/etc/hostname', null]]);
  // `linked` is a symlink to a folder outside the root: never a target.
  assert.deepEqual(edges('py/escape.py'), [['import', '....', null], ['import', 'linked', 'linked']]);
});

test('corner cases: parent packages, super::super, module roots, nested types, test source roots, include roots, several names per declaration', async () => {
  const folder = copyFixture('polyglot');
  const write = (relPath: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(folder, relPath)), { recursive: true });
    fs.writeFileSync(path.join(folder, relPath), text);
  };
  write('py/src/shop/payments/__init__.py', '');
  write('py/src/shop/payments/card.py', 'from ..models import Item\nfrom .. import pricing, VERSION\nfrom ...shop import cart\nimport shop.payments.card\n');
  write('rust/src/engine/extra.rs', 'use super::super::config::Config;\nuse super::Engine;\npub use crate::engine::parser::Token;\n');
  write('go/tools/tool.go', 'package tools\n\nimport "example.com/inventory"\n');
  write('java/src/test/java/com/acme/util/StringsTest.java', 'package com.acme.util;\nimport com.acme.util.Strings.Formatter;\nclass StringsTest {}\n');
  write('csharp/src/Acme.Util/Text.cs', 'namespace Acme.Util { public static class Text {} }\n');
  write('csharp/tests/Acme.Util.Tests/TextTests.cs', 'using Acme.Util;\nclass TextTests {}\n');
  write('go/store/limits.go', 'package store\n\nconst (\n\tLow, High = 1, 9\n)\n\nvar hits, misses int\n');
  write('cpp/src/counters.c', 'int total, *last = 0;\n');
  write('cpp/include/mathx/extra.hpp', '#include "src/util.h"\n#include <mathx/vec.hpp>\n');
  const repo = await indexFolder(t, folder);
  const edges = (relPath: string) => fileFacts(repo.id, relPath).facts.imports;
  // `...` from shop.payments goes beyond the top-level package: Python refuses it, so no edge.
  assert.deepEqual(edges('py/src/shop/payments/card.py'), [
    ['import', '..', 'py/src/shop/__init__.py'],
    ['import', '..models', 'py/src/shop/models.py'],
    ['import', '..', 'py/src/shop/__init__.py'],
    ['import', '..pricing', 'py/src/shop/pricing.py'],
    ['import', '...shop', null],
    ['import', 'shop', 'py/src/shop/__init__.py'],
    ['import', 'shop.payments', 'py/src/shop/payments/__init__.py'],
    ['import', 'shop.payments.card', 'py/src/shop/payments/card.py'],
  ]);
  assert.deepEqual(edges('rust/src/engine/extra.rs'), [
    ['use', 'super::super::config', 'rust/src/config.rs'],
    ['use', 'super', 'rust/src/engine/mod.rs'],
    ['export', 'crate::engine::parser', 'rust/src/engine/parser.rs'],
  ]);
  assert.deepEqual(edges('go/tools/tool.go'), [['import', 'example.com/inventory', 'go/main.go']]);
  assert.deepEqual(edges('java/src/test/java/com/acme/util/StringsTest.java'), [
    ['import', 'com.acme.util.Strings.Formatter', 'java/src/main/java/com/acme/util/Strings.java'],
  ]);
  // Declarations of several names at once.
  assert.deepEqual(fileFacts(repo.id, 'go/store/limits.go').facts.symbols, [
    'constant Low 3-5 exported', 'constant High 3-5 exported', 'variable hits 7-7', 'variable misses 7-7',
  ]);
  assert.deepEqual(fileFacts(repo.id, 'cpp/src/counters.c').facts.symbols, ['variable total 1-1 exported', 'variable last 1-1 exported']);
  // The test names no type of Acme.Util: no dependency on its files.
  assert.deepEqual(edges('csharp/tests/Acme.Util.Tests/TextTests.cs'), [['use', 'Acme.Util', null]]);
  assert.deepEqual(edges('cpp/include/mathx/extra.hpp'), [
    ['include', 'src/util.h', 'cpp/src/util.h'],
    ['include', '<mathx/vec.hpp>', 'cpp/include/mathx/vec.hpp'],
  ]);
});
