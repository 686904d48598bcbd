import type { Db } from '../db';
import { BANNER_HEAD, hasGeneratorBanner } from '../../util/generated-banner';

/**
 * Generated files by more of the banners tools write (util/generated-banner.ts: `DO NOT MODIFY`, `This file was
 * automatically generated …`), now that search ranks them below source. Files indexed before are flagged
 * from their first chunk (the start of the file) without being read again; a file whose banner only the
 * text past its first chunk holds is flagged at its next change.
 */
export function flag(db: Db): void {
  // Every banner says "generat…" or "DO NOT": SQLite's LIKE (case-insensitive) passes on only those heads.
  const heads = db.prepare(`
    SELECT file_id AS fileId, head FROM (
      SELECT c.file_id, substr(c.content, 1, ${BANNER_HEAD}) AS head FROM chunks c JOIN files f ON f.id = c.file_id
      WHERE c.seq = 0 AND f.generated = 0)
    WHERE head LIKE '%generat%' OR head LIKE '%do not%'`).all() as { fileId: number; head: string }[];
  const mark = db.prepare('UPDATE files SET generated = 1 WHERE id = ?');
  for (const { fileId, head } of heads) if (hasGeneratorBanner(head)) mark.run(fileId);
}

export const sql = '';
