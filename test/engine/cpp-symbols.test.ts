import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { analyzeWithTreeSitter } from '../../server/engine/indexer/parse-tree-sitter';
import { detectLanguageOf } from '../../server/engine/indexer/languages';
import type { ParsedSymbol } from '../../server/engine/types';
import { debianPackage } from '../helpers/real-code';

// googletest 1.12.1 as Debian ships it (googletest/ and googlemock/), read for its C++ symbols.
const GTEST = path.join(debianPackage('googletest', '1.12.1-0.2'), 'usr/src/googletest');

const symbolsOf = async (file: string): Promise<ParsedSymbol[]> => {
  const text = fs.readFileSync(path.join(GTEST, file), 'utf8');
  return (await analyzeWithTreeSitter(detectLanguageOf(file, text)!, file, text, GTEST)).symbols;
};
const show = (s: ParsedSymbol) => `${s.startLine} ${s.kind} ${s.parent ? `${s.parent}.` : ''}${s.name}`;
const at = (symbols: ParsedSymbol[], ...lines: number[]) => symbols.filter((s) => lines.includes(s.startLine)).map(show);

test('C++: a template specialisation is named without its arguments, its members\' parent too (gmock-actions.h)', async () => {
  const actions = await symbolsOf('googlemock/include/gmock/gmock-actions.h');
  // template <typename T> class BuiltInDefaultValue<const T> { … static bool Exists() …; static T Get() … };
  // template <typename T> class BuiltInDefaultValue<T*> { … };
  assert.deepEqual(at(actions, 209, 212, 213, 218, 221, 222), [
    '209 class BuiltInDefaultValue', '212 method BuiltInDefaultValue.Exists', '213 method BuiltInDefaultValue.Get',
    '218 class BuiltInDefaultValue', '221 method BuiltInDefaultValue.Exists', '222 method BuiltInDefaultValue.Get',
  ]);
  // `class DoAllAction<InitialAction, OtherActions...>`; the line above is the `template <…>` of a conversion
  // operator further down, cut short at `typename std::enable_if<…>::type = 0>`: no variable `type` of a
  // parent `value,\n int>` (the last template argument's text).
  assert.deepEqual(at(actions, 1511, 1512, 1515), ['1512 class DoAllAction', '1515 type DoAllAction.Base']);
});

test('C++: every symbol of googletest and googlemock is named by an identifier (or an operator), never by template text', async () => {
  const odd: string[] = [];
  let count = 0;
  const identifier = (n: string) => /^(~?[A-Za-z_]\w*|operator\W.*|operator \w+)$/.test(n);
  const walk = async (dir: string) => {
    for (const e of fs.readdirSync(path.join(GTEST, dir), { withFileTypes: true })) {
      const rel = dir ? `${dir}/${e.name}` : e.name;
      if (e.isDirectory()) await walk(rel);
      else if (/\.(h|cc)$/.test(e.name)) {
        for (const s of await symbolsOf(rel)) {
          count++;
          if (!identifier(s.name) || (s.parent !== null && !identifier(s.parent))) odd.push(`${rel}:${show(s)}`);
        }
      }
    }
  };
  await walk('');
  assert.ok(count > 9000, `${count} symbols`);
  // Among the 346 before: `FindFirstPrinter<\n T, decltype(…),\n Printer, Printers...>` (gtest-printers.h) and
  // `SignatureOf<C<F>,\n typename std::enable_if<…>::type>` (gmock-spec-builders.h), named by their arguments.
  assert.deepEqual(odd, []);
});

test('C++: a function behind an export macro returning a qualified type is a function, not a method of the type (gtest-internal.h)', async () => {
  const internal = await symbolsOf('googletest/include/gtest/internal/gtest-internal.h');
  // GTEST_API_ std::string AppendUserMessage(const std::string& gtest_msg, const Message& user_msg);
  // GTEST_API_ std::vector<EditType> CalculateOptimalEdits(…);
  assert.deepEqual(at(internal, 143, 173), ['143 function AppendUserMessage', '173 function CalculateOptimalEdits']);
  // In class NativeArray: `void (NativeArray::*clone_)(const Element*, size_t);`, a pointer to a member function.
  assert.deepEqual(at(internal, 1154), ['1154 property NativeArray.clone_']);
});

test('C++: a named namespace is a symbol (kind namespace); what it declares keeps no parent; an unnamed one is none (gtest-port.cc)', async (t) => {
  const port = await symbolsOf('googletest/src/gtest-port.cc');
  // namespace testing { namespace internal { namespace { template <typename T> T ReadProcFileField(…) {…} }  size_t GetThreadCount() …
  assert.deepEqual(at(port, 90, 91, 95, 96, 110), ['90 namespace testing', '91 namespace internal', '96 function ReadProcFileField', '110 function GetThreadCount']);
  assert.deepEqual(port.filter((s) => s.kind === 'namespace').map((s) => `${s.name} ${s.startLine}-${s.endLine}`), ['testing 90-1394', 'internal 91-1393', 'posix 1258-1263']);
  // C++17's `namespace a::b {` (googletest 1.12 keeps to C++14): named by its last part, like the nested form.
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-cpp-ns-'));
  t.after(() => fs.rmSync(root, { recursive: true, force: true }));
  fs.writeFileSync(path.join(root, 'a.hpp'), 'namespace outer::inner {\nint f();\n}\n');
  const nested = (await analyzeWithTreeSitter('cpp', 'a.hpp', fs.readFileSync(path.join(root, 'a.hpp'), 'utf8'), root)).symbols;
  assert.deepEqual(nested.map(show), ['1 namespace inner', '2 function f']);
});

test('C++: a member is a constant only when static and itself const; a pointer to const data is no constant', async () => {
  // class FixedValueProducer { … private: const T value_; }: a field of each object.
  assert.deepEqual(at(await symbolsOf('googlemock/include/gmock/gmock-actions.h'), 627), ['627 property FixedValueProducer.value_']);
  // class DestructorCall { … static std::vector<DestructorCall*>* const list_; }; and its definition out of line.
  assert.deepEqual(at(await symbolsOf('googletest/test/googletest-port-test.cc'), 1183, 1189), ['1183 constant DestructorCall.list_', '1189 constant DestructorCall.list_']);
  // template <typename T> const char* SingleEvaluationTest::p1_; (a pointer that changes, to const text)
  assert.deepEqual(at(await symbolsOf('googletest/test/gtest_unittest.cc'), 3238), ['3238 variable SingleEvaluationTest.p1_']);
});

test('C++: a class whose head holds an export macro is a class with its members (class GTEST_API_ Message, class GTEST_INTERNAL_EMPTY_BASE_CLASS NiceMock)', async () => {
  // Every `class GTEST_API_ Name {` / `struct GTEST_API_ Name :` of the package, read from its text (46 of them).
  const heads: string[] = [];
  const found: string[] = [];
  for (const dir of ['googletest/include/gtest', 'googletest/include/gtest/internal', 'googletest/src', 'googlemock/include/gmock']) {
    for (const name of fs.readdirSync(path.join(GTEST, dir)).filter((n) => /\.(h|cc)$/.test(n))) {
      const file = `${dir}/${name}`;
      const lines = fs.readFileSync(path.join(GTEST, file), 'utf8').split('\n');
      const here = lines.flatMap((l, i) => { const m = /^\s*(class|struct) GTEST_API_ (\w+)\s*(?:[:{]|$)/.exec(l); return m ? [`${file}:${i + 1} ${m[1]} ${m[2]}`] : []; });
      if (!here.length) continue;
      heads.push(...here);
      const symbols = await symbolsOf(file);
      for (const h of here) {
        const [, line, kind, nameOf] = /:(\d+) (\w+) (\w+)$/.exec(h)!;
        // A template class's range starts at its `template <…>` line.
        if (symbols.some((s) => s.kind === kind && s.name === nameOf && s.startLine <= +line && s.endLine > +line)) found.push(h);
      }
    }
  }
  assert.ok(heads.length >= 40, `${heads.length} class heads with GTEST_API_`);
  // AssertHelper too (gtest.h:1579), since the macro calls above it are read as blanks (next test).
  assert.deepEqual(heads.filter((h) => !found.includes(h)), []);
  const message = (await symbolsOf('googletest/include/gtest/gtest-message.h')).filter((s) => s.name === 'Message' || s.parent === 'Message');
  assert.deepEqual(message.slice(0, 3).map(show), ['92 class Message', '100 method Message.Message', '103 method Message.Message']);
  // template <class MockClass> class GTEST_INTERNAL_EMPTY_BASE_CLASS NiceMock : private internal::NiceMockImpl<MockClass>, public MockClass {
  // (was: variables `NiceMockImpl<MockClass>` and `MockClass`, and NiceMock's constructors as functions)
  const mocks = await symbolsOf('googlemock/include/gmock/gmock-nice-strict.h');
  assert.deepEqual(mocks.filter((s) => s.kind === 'class' && /^(Nice|Naggy|Strict)Mock$/.test(s.name)).map((s) => s.name), ['NiceMock', 'NaggyMock', 'StrictMock']);
  assert.deepEqual(mocks.filter((s) => s.kind === 'variable' || (s.kind === 'function' && /Mock$/.test(s.name))).map(show), []);
});

test('C++: a macro call standing as a declaration without `;` does not hide what follows it (gtest.h, nlohmann/json.hpp)', async () => {
  // gtest.h:1436-1446 `GTEST_IMPL_CMP_HELPER_(NE, !=)` … `(GT, >)`, one a line, each a function template once expanded
  // (g++ -E: `template <typename T1, typename T2> AssertionResult CmpHelperNE(…) { if (val1 != val2) … }`): the
  // operator argument made an ERROR reaching to line 1590, where the functions after it, class AssertHelper's head
  // and its first members were lost (its private members came out as a function `AssertHelper` and a constant `data_`).
  const gtest = await symbolsOf('googletest/include/gtest/gtest.h');
  assert.deepEqual(at(gtest, 1451, 1500, 1536, 1571, 1579, 1582, 1584, 1588, 1595, 1610, 1612), [
    '1451 function CmpHelperSTREQ', '1500 function IsSubstring', '1536 namespace internal', '1571 function DoubleNearPredFormat',
    '1579 class AssertHelper', '1582 method AssertHelper.AssertHelper', '1584 method AssertHelper.~AssertHelper', '1588 method AssertHelper.operator=',
    '1595 struct AssertHelper.AssertHelperData', '1610 property AssertHelper.data_', '1612 method AssertHelper.AssertHelper',
  ]);
  const helper = gtest.find((s) => s.name === 'AssertHelper' && s.kind === 'class')!;
  assert.deepEqual([helper.endLine, helper.exported], [1614, true]);
  // What the macro declares is not read (CmpHelperNE is no symbol), as before.
  assert.deepEqual(gtest.filter((s) => /^CmpHelper(NE|LE|LT|GE|GT)$/.test(s.name)).map(show), []);
  // nlohmann/json.hpp:4106 `template <typename SAX>\n JSON_HEDLEY_DEPRECATED_FOR(3.8.0, sax_parse(ptr, ptr + len, ...))\n
  // JSON_HEDLEY_NON_NULL(2)\n static bool sax_parse(…)`: one function with its doc comment, not a variable named by the macro.
  const root = path.join(debianPackage('nlohmann-json3-dev', '3.11.2-2'), 'usr/include');
  const text = fs.readFileSync(path.join(root, 'nlohmann/json.hpp'), 'utf8');
  const json = (await analyzeWithTreeSitter('cpp', 'nlohmann/json.hpp', text, root)).symbols;
  assert.deepEqual(json.filter((s) => s.name === 'JSON_HEDLEY_DEPRECATED_FOR').map(show), []);
  const saxParse = json.filter((s) => s.startLine === 4106);
  assert.deepEqual(saxParse.map((s) => `${show(s)}-${s.endLine}`), ['4106 function sax_parse-4120']);
  assert.match(saxParse[0].doc ?? '', /^@brief generate SAX events/);
});
