/**
 * What an edit of a file that decides resolution costs (resolution-config.ts: every import of its languages
 * resolved again, or their files parsed again) beside an edit of an ordinary file, on one engine (writer thread
 * as configured by default). Each edit appends a blank line, so no edge moves; the rounds alternate.
 *
 *   node --import tsx bench/config-edit.ts --folder <dir> --config package.json --file src/index.ts [--rounds 5]
 *
 * Prints one Markdown row: the index's files and imports, then the median of each kind of edit and their ratio.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { openBenchApp } from './bench-app';

const { values } = parseArgs({
  options: { folder: { type: 'string' }, config: { type: 'string' }, file: { type: 'string' }, rounds: { type: 'string', default: '5' } },
});
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  const folder = path.resolve(values.folder!);
  const b = await openBenchApp(folder, 'loupe-config-edit-');
  try {
    const repo = b.engine.repos.registerLocalFolder(b.userId, folder);
    await b.engine.queue.idle();
    const record = b.engine.reposStore.get(repo.id)!;
    const files = b.engine.filesStore.count(repo.id);
    const times: Record<'config' | 'file', number[]> = { config: [], file: [] };
    for (let round = 0; round < Number(values.rounds); round++) {
      for (const kind of ['file', 'config'] as const) {
        const rel = kind === 'config' ? values.config! : values.file!;
        fs.appendFileSync(path.join(folder, rel), '\n');
        const t0 = performance.now();
        await b.engine.indexer.updatePaths(record, [rel]);
        times[kind].push(performance.now() - t0);
      }
    }
    const c = median(times.config);
    const f = median(times.file);
    process.stdout.write(`| ${path.basename(folder)} | ${files} | ${values.config} | ${c.toFixed(0)} ms (${times.config.map((x) => x.toFixed(0)).join(', ')}) | ${values.file} | ${f.toFixed(0)} ms | ${(c / f).toFixed(1)}× |\n`);
  } finally {
    await b.close();
  }
}

void main();
