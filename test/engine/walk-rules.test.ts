import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { compileIgnoreRules, walk } from '../../server/engine/indexer/walk';
import { tempDir } from '../helpers/engine';
import { npmPackage } from '../helpers/real-code';

/** Walks twice: with `ignore` testing each rule, and with the rules compiled into a few expressions. */
function bothWays(root: string, options = {}) {
  compileIgnoreRules(false);
  try {
    const byRule = walk(root, options);
    compileIgnoreRules(true);
    return { byRule, compiled: walk(root, options) };
  } finally {
    compileIgnoreRules(true);
  }
}

// Rules of the kinds large .gitignore files have: plain names, extensions, anchored and nested paths,
// folders only, `**`, character classes, escapes, and re-includes after and before the rules they undo.
const ROOT_RULES = `
# editors and logs
*.log
!important.log
.DS_Store
/dist/cjs/
dist/*/index.d.ts
**/jsx/**/*.js
!**/jsx/dom/*.js
helper/
[Tt]ests/
*.[oa]
\\#*
!/dist/adapter/
dist/adapter/*.d.ts
utils/**
!utils/url*
coverage
`;

test('the walk\'s compiled ignore rules decide as the ignore package does, on real code with many kinds of rule', () => {
  const folder = tempDir('loupe-rules-');
  fs.cpSync(npmPackage('hono@4.13.19'), folder, { recursive: true });
  fs.writeFileSync(path.join(folder, '.gitignore'), ROOT_RULES);
  fs.writeFileSync(path.join(folder, 'dist', '.gitignore'), 'types/\n!types/index.d.ts\n*.map\nmiddleware/*/\n!middleware/jwt/\n');
  fs.writeFileSync(path.join(folder, 'dist', 'middleware', '.loupeignore'), '**/index.js\n!cors/index.js\n');
  for (const name of ['a.log', 'important.log', 'x.o', 'y.a', '#draft.ts', 'Tests/t.ts', 'tests/u.ts', 'coverage/c.json', 'src/coverage']) {
    fs.mkdirSync(path.dirname(path.join(folder, name)), { recursive: true });
    fs.writeFileSync(path.join(folder, name), 'x\n');
  }
  const { byRule, compiled } = bothWays(folder, { ignoreGlobs: ['*.md', '!README.md'] });
  assert.ok(byRule.length > 100, `${byRule.length} files listed`);
  assert.deepEqual(compiled, byRule);
  const paths = new Set(compiled.map((e) => e.relPath));
  assert.ok(paths.has('important.log') && !paths.has('a.log'), 'a re-include after the rule it undoes');
  assert.ok(!paths.has('x.o') && !paths.has('y.a') && !paths.has('#draft.ts'), 'classes and escapes');
  assert.ok(!paths.has('Tests/t.ts') && !paths.has('tests/u.ts') && !paths.has('src/coverage'), 'folders and names anywhere');
  assert.ok(![...paths].some((p) => p.startsWith('dist/cjs/')), 'an anchored folder');
});

test('the compiled rules decide as the ignore package does on this repository (its own .gitignore)', () => {
  const { byRule, compiled } = bothWays(path.join(__dirname, '..', '..'));
  assert.ok(byRule.length > 300, `${byRule.length} files listed`);
  assert.deepEqual(compiled, byRule);
});
