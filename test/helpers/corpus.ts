import fs from 'node:fs';
import path from 'node:path';

/**
 * Writes a synthetic TypeScript project of `count` modules (deterministic: same count, same bytes).
 * Each module imports two others and exports a function, a class and an interface, so files,
 * symbols, import edges and chunks all get rows. Big enough counts keep the indexer busy for
 * seconds, which fault tests need to kill it mid-run.
 */
export function writeTsCorpus(root: string, count: number): string {
  for (let i = 0; i < count; i++) {
    const dir = path.join(root, 'src', `pkg${i % 20}`);
    fs.mkdirSync(dir, { recursive: true });
    const a = (i * 7 + 3) % count;
    const b = (i * 13 + 5) % count;
    const body = [
      `import { helper${a} } from '../pkg${a % 20}/mod${a}';`,
      `import type { Shape${b} } from '../pkg${b % 20}/mod${b}';`,
      '',
      `/** Computes the weighted total for module ${i}. */`,
      `export function helper${i}(values: number[], weight = ${i % 17 + 1}): number {`,
      '  let total = 0;',
      `  for (const v of values) total += v * weight + ${i};`,
      '  return total;',
      '}',
      '',
      `export interface Shape${i} { id: number; label: string; next?: Shape${b} }`,
      '',
      `export class Service${i} {`,
      `  private cache = new Map<number, Shape${i}>();`,
      `  lookup(id: number): Shape${i} | undefined { return this.cache.get(id); }`,
      `  store(shape: Shape${i}): void { this.cache.set(shape.id, shape); }`,
      `  compute(xs: number[]): number { return helper${a}(xs) + helper${i}(xs); }`,
      '}',
      '',
    ].join('\n');
    fs.writeFileSync(path.join(dir, `mod${i}.ts`), body);
  }
  fs.writeFileSync(path.join(root, 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true, module: 'esnext', target: 'es2022' } }));
  return root;
}
