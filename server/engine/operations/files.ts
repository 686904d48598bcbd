import type { Static } from 'typebox';
import type { FileListItem } from '../store/files-store';
import { DOC_DEPTHS, type DocDepth } from '../docs/depth';
import type { FileContent, FileItem, ListFilesQuery } from '../../../protocol/api/files';
import type { FileDoc, FileDocParams, FileDocQuery } from '../../../protocol/api/analysis';
import type { RepoIdParams } from '../../../protocol/api/repos';
import type { DOC_DEPTHS as API_DOC_DEPTHS } from '../../../protocol/api/common';
import type { Answer, Caller } from './call';
import { metered, page } from './metering';
import type { EngineParts } from './parts';

// The engine's depths and the API's enums are one list: this line stops compiling if either changes alone.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
export const DEPTHS_AGREE: Same<DocDepth, (typeof API_DOC_DEPTHS)[number]> = true;

export const toFileItem = (f: FileListItem): FileItem => ({
  id: f.uid, file_name: f.name, file_path: f.path, description: f.description, dependencies: f.dependencies,
  total_lines: f.lines, language: f.language, size: f.size, function_count: f.functionCount, class_count: f.classCount,
  variable_count: f.variableCount, symbol_count: f.symbolCount, indexed_at: f.indexedAt,
});

/** The files of a repository, and one file's documentation. */
export class FileOperations {
  constructor(private readonly e: EngineParts) {}

  /** A repository's files with documentation hints (1 credit; a history row `files` only for a `search`: a plain listing is polled). */
  list(caller: Caller, q: Static<typeof RepoIdParams> & ListFilesQuery): Promise<Answer<FileItem[]>> {
    return metered(this.e.accounts, caller, { operation: 'files.list', cost: 1 }, async (meter) => {
      const repo = await this.e.repos.resolve(caller, q.repo_id);
      const { items, total } = await this.e.files.list(repo, { limit: q.limit, offset: q.offset, orderBy: q.order_by, order: q.order, search: q.search });
      return meter.answer(items.map(toFileItem), {
        pagination: page(total, q.limit, q.offset),
        history: q.search ? { category: 'files', query: q.search, repoIds: [repo.id], summary: `${total} files` } : undefined,
      });
    });
  }

  /**
   * One file's text as indexed (1 credit, no history row: an editor opens files as a user clicks hits). What the
   * extension shows for a hit from a team server, whose files are not on the user's disk.
   */
  content(caller: Caller, q: Static<typeof FileDocParams>): Promise<Answer<FileContent>> {
    return metered(this.e.accounts, caller, { operation: 'files.content', cost: 1 }, async (meter) => {
      const repo = await this.e.repos.resolve(caller, q.repo_id);
      const file = await this.e.files.resolve(repo, q.file_id);
      const content = await this.e.files.content(file);
      return meter.answer({ id: file.uid, repo_id: repo.id, file_path: file.path, language: file.language, total_lines: file.lines, content });
    });
  }

  /**
   * One file's documentation, generated in the background: 2 credits when ready, nothing while it
   * is processing. Without `fields`, the deepest depth the plan allows; a depth the plan lacks is a 403.
   */
  doc(caller: Caller, q: Static<typeof FileDocParams> & Static<typeof FileDocQuery>): Promise<Answer<Static<typeof FileDoc>>> {
    return metered(this.e.accounts, caller, { operation: 'files.docs', cost: 2, history: 'docs' }, async (meter) => {
      const repo = await this.e.repos.resolve(caller, q.repo_id);
      const file = await this.e.files.resolve(repo, q.file_id);
      let depth: DocDepth;
      if (q.fields) {
        this.e.accounts.requireDepth(caller, q.fields);
        depth = q.fields;
      } else {
        const allowed = this.e.accounts.planOf(caller.plan).depths;
        depth = [...DOC_DEPTHS].reverse().find((d) => allowed.includes(d)) ?? 'basic';
      }
      const answer = await this.e.docs.get(repo.id, file, depth);
      const processing = answer.state === 'processing';
      return meter.answer({
        id: file.uid, file_path: file.path, file_name: file.name, language: file.language, total_lines: file.lines,
        documentation: answer.state === 'ready' ? answer.markdown : null,
        generator: answer.state === 'ready' ? answer.generator : null,
        generated_at: answer.state === 'ready' ? answer.generatedAt : null,
      }, {
        cost: processing ? 0 : undefined,
        message: processing ? 'documentation is being generated; ask again shortly (not charged)' : undefined,
        history: { repoIds: [repo.id] },
        meta: { processing, fields_applied: depth },
      });
    });
  }
}
