import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isGoStdlib, isPythonStdlib, isPythonStdlibAnyVersion, isStandardLibrary } from '../../server/engine/indexer/stdlib';

const dir = path.join(__dirname, '../../server/engine/indexer/stdlib');

test('Python: the standard library by top-level name, Python 2 names apart', () => {
  for (const name of ['typing', 'json', 'os.path', 'http.cookies', 'xml.etree.ElementTree', '__future__', '_thread']) {
    assert.ok(isPythonStdlib(name), name);
  }
  for (const name of ['flask', 'requests', 'test', 'tests', 'src', 'cPickle']) assert.equal(isPythonStdlib(name), false, name);
  assert.ok(isPythonStdlibAnyVersion('cPickle') && isPythonStdlibAnyVersion('urllib2') && isStandardLibrary('python', 'ConfigParser'));
});

test('Go: an import path whose first element has no dot', () => {
  for (const p of ['fmt', 'net/http', 'encoding/json', 'C']) assert.ok(isGoStdlib(p), p);
  for (const p of ['github.com/gin-gonic/gin', 'golang.org/x/net/http2', 'gopkg.in/yaml.v2']) assert.equal(isGoStdlib(p), false, p);
  assert.equal(isStandardLibrary('go', 'github.com/gin-gonic/gin'), false);
});

test('the other languages: Rust std, the JDK, .NET System, C and POSIX headers, Ruby default gems, PHP classes', () => {
  const yes: [string, string][] = [['rust', 'std'], ['rust', 'core'], ['java', 'java.util'], ['java', 'javax.tools'], ['csharp', 'System.Linq'],
    ['c', 'stdio.h'], ['c', 'sys/mman.h'], ['cpp', 'vector'], ['ruby', 'json'], ['ruby', 'net/http'], ['ruby', 'fiber'], ['ruby', 'digest/sha2'], ['php', 'InvalidArgumentException']];
  const no: [string, string][] = [['rust', 'tokio'], ['java', 'com.google.common.collect'], ['csharp', 'Newtonsoft.Json'], ['c', 'openssl/ssl.h'],
    ['ruby', 'rack'], ['ruby', 'net/ssh'], ['ruby', 'net/http/persistent'], ['ruby', 'rake'], ['php', 'Symfony\\Component\\Console'], ['typescript', 'fs']];
  for (const [language, name] of yes) assert.ok(isStandardLibrary(language, name), `${language} ${name}`);
  for (const [language, name] of no) assert.equal(isStandardLibrary(language, name), false, `${language} ${name}`);
});

test('python-names.ts is what the generator writes with this machine\'s Python 3', (t) => {
  const committed = fs.readFileSync(path.join(dir, 'python-names.ts'), 'utf8');
  const version = /from Python (\d+\.\d+)\./.exec(committed)![1];
  const ours = execFileSync('/usr/bin/python3', ['-c', 'import sys; print("%d.%d" % sys.version_info[:2])'], { encoding: 'utf8' }).trim();
  if (ours !== version) {
    t.skip(`generated with Python ${version}, this machine has ${ours}`);
    return;
  }
  const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-stdlib-')), 'python-names.ts');
  try {
    execFileSync('/usr/bin/python3', [path.join(dir, 'generate-python-names.py'), out]);
    assert.equal(fs.readFileSync(out, 'utf8').replace(/Python [\d.]+'s/, ''), committed.replace(/Python [\d.]+'s/, ''));
  } finally {
    fs.rmSync(path.dirname(out), { recursive: true, force: true });
  }
});
