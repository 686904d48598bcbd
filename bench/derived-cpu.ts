/**
 * The derived phase's own CPU work on two checkouts side by side, in this process (one thread): splitting a
 * folder's script files into stemmed terms (`textTerms`, as embedding, training and BM25 do) and training the
 * corpus model on ~8,000 of their 40-line pieces (`trainCorpusModel`). Rounds alternate between the builds;
 * each build's output must be the same as the other's (term count and a hash of the terms; a hash of the
 * model's vectors), or the script fails. `--model-tolerance X`: the models may differ by up to X in any
 * coordinate (a change to training's arithmetic); the largest difference is printed.
 *
 *   node --import tsx bench/derived-cpu.ts --baseline <checkout> [--candidate <checkout>] --folder <dir> [--rounds 5] [--model-tolerance 1e-6]
 *
 * Prints one Markdown table of medians with the load average.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { SIDE_BY_SIDE } from './cli-server';

const { values } = parseArgs({ options: { ...SIDE_BY_SIDE, rounds: { type: 'string', default: '5' }, 'model-tolerance': { type: 'string', default: '0' } } });
if (!values.baseline || !values.folder) throw new Error('--baseline <checkout> and --folder <dir> are required');

type Terms = typeof import('../server/engine/embed/terms');
type Model = typeof import('../server/engine/embed/corpus-model');
const load = async (checkout: string) => ({
  terms: (await import(path.join(path.resolve(checkout), 'server/engine/embed/terms.ts'))) as Terms,
  model: (await import(path.join(path.resolve(checkout), 'server/engine/embed/corpus-model.ts'))) as Model,
});

async function main(): Promise<void> {
  const { walk } = await import('../server/engine/indexer/walk');
  const folder = path.resolve(values.folder!);
  const texts = walk(folder).filter((e) => /\.[cm]?[jt]sx?$/.test(e.relPath) && e.size <= 1 << 20)
    .map((e) => fs.readFileSync(path.join(folder, e.relPath), 'utf8'));
  const pieces: string[] = [];
  for (const t of texts) {
    const lines = t.split('\n');
    for (let i = 0; i < lines.length; i += 40) pieces.push(lines.slice(i, i + 40).join('\n'));
  }
  const sample = pieces.filter((_, i) => i % Math.max(1, Math.ceil(pieces.length / 8000)) === 0);
  const sides = { baseline: await load(values.baseline!), candidate: await load(values.candidate!) };
  const times: Record<string, { terms: number[]; train: number[] }> = { baseline: { terms: [], train: [] }, candidate: { terms: [], train: [] } };
  const outputs: Record<string, string> = {};
  const models: Record<string, Float32Array> = {};
  const loads: string[] = [];
  for (let r = 0; r < Number(values.rounds); r++) {
    for (const side of r % 2 ? ['candidate', 'baseline'] as const : ['baseline', 'candidate'] as const) {
      const { terms, model } = sides[side];
      const hash = crypto.createHash('sha1');
      let count = 0;
      let t0 = performance.now();
      for (const t of texts) {
        const got = terms.textTerms(t);
        count += got.length;
        hash.update(got.join(' '));
      }
      times[side].terms.push(performance.now() - t0);
      t0 = performance.now();
      const trained = model.trainCorpusModel(sample, { dims: 128 });
      times[side].train.push(performance.now() - t0);
      const tolerant = Number(values['model-tolerance']) > 0;
      const vectors = !trained ? 'none' : tolerant ? `of ${trained.terms.length} words` : crypto.createHash('sha1').update(Buffer.from(trained.vectors.buffer)).digest('hex');
      if (trained) models[side] = trained.vectors;
      const output = `${count} terms ${hash.digest('hex')}, model ${vectors}`;
      if (outputs[side] && outputs[side] !== output) throw new Error(`${side}: its output changed between rounds`);
      outputs[side] = output;
      process.stderr.write(`${side}: terms ${times[side].terms.at(-1)!.toFixed(0)} ms, training ${times[side].train.at(-1)!.toFixed(0)} ms (${output})\n`);
    }
    loads.push(os.loadavg()[0].toFixed(2));
  }
  if (outputs.baseline !== outputs.candidate) throw new Error(`the builds' outputs differ:\n${outputs.baseline}\n${outputs.candidate}`);
  let modelDifference = 0;
  if (models.baseline && models.candidate) {
    if (models.baseline.length !== models.candidate.length) throw new Error('the models differ in size');
    for (let i = 0; i < models.baseline.length; i++) modelDifference = Math.max(modelDifference, Math.abs(models.baseline[i] - models.candidate[i]));
  }
  if (modelDifference > Number(values['model-tolerance'])) throw new Error(`the models differ by ${modelDifference}, more than --model-tolerance`);
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const row = (side: string) => `| ${side} | ${median(times[side].terms).toFixed(0)} | ${median(times[side].train).toFixed(0)} |`;
  process.stdout.write(`textTerms over ${texts.length} script files (${(texts.reduce((a, t) => a + t.length, 0) / 1e6).toFixed(1)} MB) and training on ${sample.length} pieces, ` +
    `${values.rounds} alternating rounds, medians; same output on both (${outputs.candidate}; the models' largest difference ${modelDifference}); load ${loads.join(' → ')}.\n\n` +
    '| build | textTerms (ms) | training (ms) |\n|---|---|---|\n' + `${row('baseline')}\n${row('candidate')}\n` +
    `| candidate / baseline | ${(median(times.candidate.terms) / median(times.baseline.terms)).toFixed(2)} | ${(median(times.candidate.train) / median(times.baseline.train)).toFixed(2)} |\n`);
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack}\n`);
  process.exit(1);
});
