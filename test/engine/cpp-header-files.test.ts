import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { languageOf } from '../../server/engine/indexer/languages';
import { createTestEngine, indexFolder } from '../helpers/engine';
import { debianPackage, debianPinned } from '../helpers/real-code';

/**
 * The headers C++ libraries include that are named otherwise than `.h`/`.hpp`: glm's `detail/*.inl`, Boost's `.ipp`,
 * and Eigen's module headers without an extension (`Eigen/Dense`). Their `#include`s are edges as any header's,
 * so a change deep in Eigen reaches the code that includes `Eigen/Dense`. Checked against g++ on the two libraries
 * as Debian ships them: what g++ opens for an entry header, recorded with g++ 12.2 in
 * test/golden/includes/eigen-glm-gxx.txt (CI has no g++; where one is installed the record is checked against it).
 */
const EIGEN = ['libeigen3-dev', '3.4.0-4'] as const;
const GLM = ['libglm-dev', '0.9.9.8+ds-6'] as const;

test('a header is C++ by its extension (.inl, .ipp, .tcc …) or, without one, by its opening directive; a comment is no directive', () => {
  for (const name of ['func_common.inl', 'impl.ipp', 'vector.tcc', 'matrix.tpp', 'module.ixx', 'x.h++']) assert.equal(languageOf(name, 'int x;\n'), 'cpp', name);
  const eigenCore = '// This file is part of Eigen, a lightweight C++ template library\n/* MPL2 */\n#ifndef EIGEN_CORE_H\n#define EIGEN_CORE_H\n#include <new>\nnamespace Eigen {}\n#endif\n';
  assert.equal(languageOf('Core', eigenCore), 'cpp');
  // C++ even with nothing C++-only in it (Eigen/Dense is a list of #include lines): C's headers end in .h.
  assert.equal(languageOf('Dense', '#include "Core"\n#include "LU"\n'), 'cpp');
  assert.equal(languageOf('QString', '#include "qstring.h"\n'), 'cpp');
  assert.equal(languageOf('compat', '#pragma once\nint f(void);\n'), 'cpp');
  assert.equal(languageOf('config', '#ifndef CONFIG_H\n#define CONFIG_H\nint f(void);\n#endif\n'), 'cpp');
  // Files without an extension that are not headers.
  assert.equal(languageOf('CODEOWNERS', '# include the docs team on every change\n* @docs\n'), null);
  assert.equal(languageOf('LICENSE', 'MIT License\n\n#include is a directive of C\n'), null);
  assert.equal(languageOf('build', '# ifndef is not a shell keyword\necho hi\n'), null);
  assert.equal(languageOf('notes', '#ifndef\n'), null);
  assert.equal(languageOf('thor', '#!/usr/bin/env ruby\nrequire "thor"\n'), 'ruby', 'a #! line still decides');
});

/** The record: for each entry header, the files of its library g++ opens for it. */
function recorded(): Map<string, { library: string; files: string[] }> {
  const out = new Map<string, { library: string; files: string[] }>();
  let entry = '';
  for (const line of fs.readFileSync(path.join(__dirname, '..', 'golden', 'includes', 'eigen-glm-gxx.txt'), 'utf8').split('\n')) {
    if (!line || line.startsWith('#')) continue;
    if (line.startsWith('  ')) out.get(entry)!.files.push(line.trim());
    else { const [library, header] = line.split(' '); entry = header; out.set(entry, { library, files: [] }); }
  }
  return out;
}

const roots = { eigen: () => path.join(debianPackage(...EIGEN), 'usr/include/eigen3'), glm: () => path.join(debianPackage(...GLM), 'usr/include') };
const gxx = fs.existsSync('/usr/bin/g++');

/** What g++ opens for `entry` under `root`, normalized and sorted. */
function gxxOpens(root: string, entry: string): string[] {
  const text = execFileSync('/usr/bin/g++', ['-std=c++17', '-MM', '-MG', '-I.', '-x', 'c++', entry], { cwd: root, encoding: 'utf8', timeout: 120_000, killSignal: 'SIGKILL' });
  const files = text.replace(/\\\n/g, ' ').split(/\s+/).filter((w) => w && !w.endsWith(':')).map((f) => path.posix.normalize(f));
  return [...new Set(files)].filter((f) => f !== entry).sort();
}

for (const library of ['eigen', 'glm'] as const) {
  test(`${library}: every header g++ opens for an entry header is in its radius's reach, and the entry is a dependent of each`, { timeout: 10 * 60_000 }, async () => {
    const root = roots[library]();
    const pinned = library === 'eigen' ? debianPinned(...EIGEN) : debianPinned(...GLM);
    const entries = [...recorded()].filter(([, r]) => r.library === library);
    const t = createTestEngine();
    try {
      const repo = await indexFolder(t, root);
      const graph = await t.engine.analysis.ctx.graph(repo.id);
      const reach = (file: string) => new Set([...graph.reachableFrom([graph.indexOfPath.get(file)!])].map((i) => graph.path(i)));
      for (const [entry, record] of entries) {
        const opened = gxx ? gxxOpens(root, entry) : record.files.filter((f) => pinned || fs.existsSync(path.join(root, f)));
        if (gxx && pinned) assert.deepEqual(opened, record.files, `test/golden/includes/eigen-glm-gxx.txt is not what g++ opens for ${entry} now`);
        assert.ok(opened.length > 100, `${entry}: ${opened.length} headers`);
        const reached = reach(entry);
        assert.deepEqual(opened.filter((f) => !reached.has(f)), [], `${entry}: headers g++ opens that its includes do not reach`);
      }
      // The same through the radius operation: a header deep inside is reached from every entry that includes it.
      const deep = library === 'eigen' ? 'Eigen/src/Core/util/Macros.h' : 'glm/detail/setup.hpp';
      const radius = await t.engine.analysis.radius(repo, { files: [deep], dependencies: [], include: ['dependents'], limit: 100_000 });
      const dependents = new Set((radius.targets[0].dependents ?? []).map((d) => d.file_path));
      for (const [entry, record] of entries) if (record.files.includes(deep)) assert.ok(dependents.has(entry), `${entry} is no dependent of ${deep}`);
    } finally {
      await t.close();
    }
  });
}
