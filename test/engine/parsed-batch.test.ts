import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';
import { createTestEngine, indexFolder, tempDir } from '../helpers/engine';
import { npmPackage } from '../helpers/real-code';
import { FileParser } from '../../server/engine/indexer/parse-file';
import { parsedFiles, providedNow, summarize, type ParsedBatch } from '../../server/engine/indexer/parsed-batch';
import { WorkerIndexWriter } from '../../server/engine/indexer/index-writer';
import type { ParsedFile } from '../../server/engine/types';

test('a batch of parse results travels as one buffer and a summary each, and reads back as the same files', async () => {
  const root = tempDir('loupe-batch-');
  fs.writeFileSync(path.join(root, 'Shapes.cs'), 'namespace Geo {\n  public class Circle { }\n  public interface IShape { }\n}\n');
  fs.writeFileSync(path.join(root, 'main.ts'), "import { x } from './other';\nexport function area(r: number) { return Math.PI * r * r + x; }\n");
  fs.writeFileSync(path.join(root, 'other.ts'), 'export const x = 1;\n');
  fs.writeFileSync(path.join(root, 'blob.bin'), Buffer.from([0, 1, 2, 0, 0, 255, 0, 3]));
  const parser = new FileParser(root, { maxFileBytes: 1 << 20 });
  const results = [];
  for (const name of ['Shapes.cs', 'main.ts', 'blob.bin', 'other.ts']) {
    const stat = fs.statSync(path.join(root, name));
    results.push(await parser.parse({ relPath: name, size: stat.size, mtimeMs: Math.trunc(stat.mtimeMs) }));
  }
  const files = results.flatMap((r) => (r.kind === 'parsed' ? [r.file] : []));
  assert.equal(files.length, 3);
  const { results: summaries, batch } = summarize(results);
  assert.equal(batch.count, 3);
  assert.ok(batch.files instanceof ArrayBuffer);
  assert.deepEqual(summaries.map((s) => s.kind), ['parsed', 'parsed', 'skipped', 'parsed']);
  const cs = summaries[0];
  assert.ok(cs.kind === 'parsed');
  assert.deepEqual(cs, { kind: 'parsed', path: 'Shapes.cs', language: 'csharp', provided: providedNow(files[0]) });
  assert.deepEqual([...cs.provided].sort(), ['circle', 'ishape'], 'the C# types it declares, read from its text in the worker');
  assert.deepEqual(summaries[2], results[2], 'a skipped file is told as it is');
  // Moved to another thread's side and read there: the same files.
  const moved = structuredClone(batch, { transfer: [batch.files] });
  assert.equal(batch.files.byteLength, 0, 'the bytes were moved, not copied');
  assert.deepEqual(parsedFiles([moved]), files);
});

test('a cold index passes parsed files to the writer thread as the parse workers\' bytes, never as objects made on this thread', async () => {
  const folder = tempDir('loupe-batch-index-');
  fs.cpSync(npmPackage('hono@4.13.19'), folder, { recursive: true });
  const proto = WorkerIndexWriter.prototype as unknown as {
    writeFiles: (...a: unknown[]) => Promise<void>;
    writeSerialized: (repoId: string, batches: ParsedBatch[], ...rest: unknown[]) => Promise<void>;
  };
  const originals = { writeFiles: proto.writeFiles, writeSerialized: proto.writeSerialized, deserialize: v8.deserialize };
  const sent: ParsedBatch[] = [];
  let objectWrites = 0;
  let deserialized = 0;
  proto.writeFiles = function (...a: unknown[]) { objectWrites++; return originals.writeFiles.apply(this, a); };
  proto.writeSerialized = function (repoId: string, batches: ParsedBatch[], ...rest: unknown[]) {
    sent.push(...batches);
    return originals.writeSerialized.call(this, repoId, batches, ...rest);
  };
  (v8 as { deserialize: typeof v8.deserialize }).deserialize = (...a: Parameters<typeof v8.deserialize>) => { deserialized++; return originals.deserialize(...a); };
  const t = createTestEngine();
  try {
    const repo = await indexFolder(t, folder);
    assert.equal(repo.state, 'ready');
    const indexed = t.engine.filesStore.count(repo.id);
    assert.ok(indexed > 500, `${indexed} files indexed`);
    assert.equal(objectWrites, 0, 'no parsed file was sent to the writer as an object');
    assert.equal(sent.reduce((n, b) => n + b.count, 0), indexed, 'every indexed file went to the writer in a batch');
    assert.ok(sent.every((b) => b.files.byteLength === 0), 'each batch\'s bytes were moved to the writer\'s thread (detached here), not copied');
    assert.equal(deserialized, 0, 'no batch was read on this thread');
    // What the writer read from the bytes is what a parse makes.
    const parser = new FileParser(folder, { maxFileBytes: 1 << 20 });
    const record = t.engine.filesStore.getByPath(repo.id, 'dist/index.js')!;
    const again = await parser.parse({ relPath: 'dist/index.js', size: record.size, mtimeMs: record.mtimeMs });
    assert.ok(again.kind === 'parsed');
    assert.equal(record.hash, (again.file as ParsedFile).hash);
    assert.deepEqual(t.engine.filesStore.imports(record.id).map((i) => i.specifier).sort(), again.file.imports.map((i) => i.specifier).sort());
  } finally {
    Object.assign(proto, { writeFiles: originals.writeFiles, writeSerialized: originals.writeSerialized });
    (v8 as { deserialize: typeof v8.deserialize }).deserialize = originals.deserialize;
    await t.close();
  }
});
