import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Engine } from '../../../../engine/engine';
import type { FileListItem } from '../../../../engine/store/files-store';
import { PagedEnvelope } from '../../../../../protocol/api/common';
import { FileItem, ListFilesQuery } from '../../../../../protocol/api/files';
import { RepoIdParams } from '../../../../../protocol/api/repos';
import { callerOf, ok, page } from '../../context';
import { errors } from '../../../common/error-responses';

export const toFileItem = (f: FileListItem) => ({
  id: f.uid, file_name: f.name, file_path: f.path, description: f.description, dependencies: f.dependencies,
  total_lines: f.lines, language: f.language, size: f.size, function_count: f.functionCount, class_count: f.classCount,
  variable_count: f.variableCount, symbol_count: f.symbolCount, indexed_at: f.indexedAt,
});

/** /v2/files/{repo_id}: the files of a repository. */
export async function filesRoutes(fastify: FastifyInstance, engine: Engine): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get('/v2/files/:repo_id', {
    schema: {
      operationId: 'listFiles', tags: ['files'], summary: 'List a repository\'s files with documentation hints (1 credit)',
      params: RepoIdParams,
      querystring: ListFilesQuery,
      response: { 200: PagedEnvelope(Type.Array(FileItem)), ...errors(400, 401, 402, 404) },
    },
    config: { cost: 1, operation: 'files.list', history: 'files' },
  }, async (request, reply) => {
    const repo = engine.repos.resolve(callerOf(request), request.params.repo_id);
    const q = request.query;
    const { items, total } = engine.files.list(repo, { limit: q.limit, offset: q.offset, orderBy: q.order_by as never, order: q.order, search: q.search });
    return ok(engine, request, reply, items.map(toFileItem), {
      pagination: page(total, q.limit, q.offset),
      history: { query: q.search ?? null, repoIds: [repo.id], summary: `${total} files` },
    });
  });
}
