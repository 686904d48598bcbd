/**
 * How many files of a folder have each role (search/file-role.ts), judged by their path alone as before
 * testing-libraries.ts, and with the folder's testing libraries (django/test/) turned back into source.
 *
 *   node --import tsx bench/role-counts.ts <folder> [<folder> …] [--verbose]
 *
 * Prints one Markdown row per folder: files, then `before → after` per role that changed or is set, then the folders
 * judged libraries (`--verbose`: every file whose role changed).
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { testingLibraries } from '../server/engine/analysis/testing-libraries';
import { FILE_ROLES, fileRole } from '../server/engine/search/file-role';

function walk(root: string, dir = ''): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const rel = dir ? `${dir}/${e.name}` : e.name;
    if (e.isDirectory()) { if (!['.git', 'node_modules', '__pycache__'].includes(e.name)) out.push(...walk(root, rel)); }
    else if (e.isFile()) out.push(rel);
  }
  return out;
}

const { values, positionals } = parseArgs({ allowPositionals: true, options: { verbose: { type: 'boolean', default: false } } });
process.stdout.write(`| folder | files | ${FILE_ROLES.join(' | ')} | source | testing libraries |\n|---|---:|${FILE_ROLES.map(() => '---:|').join('')}---:|---|\n`);
for (const folder of positionals) {
  const paths = walk(path.resolve(folder));
  const libraries = testingLibraries(paths);
  const count = (role: string | null, withLibraries: boolean) =>
    paths.filter((p) => fileRole(p, false, withLibraries ? libraries : undefined) === role).length;
  const cell = (role: string | null) => { const [b, a] = [count(role, false), count(role, true)]; return b === a ? String(b) : `${b} → ${a}`; };
  process.stdout.write(`| ${folder} | ${paths.length} | ${FILE_ROLES.map(cell).join(' | ')} | ${cell(null)} | ${[...libraries.folders].join(' ') || '–'} |\n`);
  if (values.verbose) {
    for (const p of paths) {
      const [b, a] = [fileRole(p), fileRole(p, false, libraries)];
      if (b !== a) process.stderr.write(`${folder}: ${p} ${b} → ${a ?? 'source'}\n`);
    }
  }
}
