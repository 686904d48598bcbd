import type { FileRecord, ParsedImport, ParsedSymbol } from '../../types';
import { nowIso } from '../../util/ids';
import { FILE_COLUMNS, toImport, toRecord, toSymbol, type FileRow, type ImportRow, type SymbolRow } from './files-store';
import type { PgSql } from './sql';

/** What a file's doc is built from. */
export interface DocInput {
  record: FileRecord;
  text: string;
  symbols: (ParsedSymbol & { id: number })[];
  imports: ParsedImport[];
}

export interface DocRow { fileId: number; sourceHash: string; generator: string; doc: string }

/**
 * File docs in batches, for the team server's worker, which builds the doc of every file after a run:
 * one file at a time (PgFilesStore's getByPath, content, symbols, imports, then PgAnalysisStore's
 * putFileDoc) is five round trips per file; here a batch of files is four reads (in parallel on the
 * pool) and one write. The rows read and written are the per-file methods' (same order, same shapes).
 */
export class PgDocsStore {
  constructor(private readonly db: PgSql) {}

  /** The inputs of the files of `repoId` among `fileIds` that still exist, in `fileIds`' order. */
  async inputs(repoId: string, fileIds: number[]): Promise<DocInput[]> {
    if (!fileIds.length) return [];
    const [files, chunks, symbols, imports] = await Promise.all([
      this.db.rows<FileRow>(`SELECT ${FILE_COLUMNS} FROM files WHERE repo_id = $1 AND id = ANY($2::int[])`, [repoId, fileIds]),
      this.db.rows<{ file_id: number; content: string }>('SELECT file_id, content FROM chunks WHERE file_id = ANY($1::int[]) ORDER BY file_id, seq', [fileIds]),
      this.db.rows<SymbolRow & { file_id: number }>('SELECT * FROM symbols WHERE file_id = ANY($1::int[]) ORDER BY file_id, start_line, id', [fileIds]),
      this.db.rows<ImportRow & { file_id: number }>('SELECT * FROM imports WHERE file_id = ANY($1::int[]) ORDER BY file_id, line, id', [fileIds]),
    ]);
    const group = <R extends { file_id: number }>(rows: R[]) => {
      const by = new Map<number, R[]>();
      for (const r of rows) {
        const list = by.get(r.file_id);
        if (list) list.push(r);
        else by.set(r.file_id, [r]);
      }
      return by;
    };
    const [texts, syms, imps] = [group(chunks), group(symbols), group(imports)];
    const records = new Map(files.map((f) => [f.id, toRecord(f)]));
    const out: DocInput[] = [];
    for (const id of fileIds) {
      const record = records.get(id);
      if (!record) continue;
      out.push({
        record,
        text: (texts.get(id) ?? []).map((r) => r.content).join('\n'),
        symbols: (syms.get(id) ?? []).map(toSymbol),
        imports: (imps.get(id) ?? []).map(toImport),
      });
    }
    return out;
  }

  /** Upserts docs in one statement (PgAnalysisStore.putFileDoc's upsert, for many files). */
  async put(docs: DocRow[]): Promise<void> {
    if (!docs.length) return;
    await this.db.query(
      `INSERT INTO file_docs (file_id, source_hash, generator, doc, generated_at)
       SELECT f, h, g, d, $5 FROM unnest($1::int[], $2::text[], $3::text[], $4::text[]) AS x(f, h, g, d)
       ON CONFLICT (file_id) DO UPDATE SET source_hash = excluded.source_hash, generator = excluded.generator,
         doc = excluded.doc, generated_at = excluded.generated_at`,
      [docs.map((d) => d.fileId), docs.map((d) => d.sourceHash), docs.map((d) => d.generator), docs.map((d) => d.doc), nowIso()]);
  }
}
