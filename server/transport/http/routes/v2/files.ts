import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Operations } from '../../../../engine/operations';
import { Envelope, PagedEnvelope } from '../../../../../protocol/api/common';
import { FileContent, FileItem, ListFilesQuery } from '../../../../../protocol/api/files';
import { FileDocParams } from '../../../../../protocol/api/analysis';
import { RepoIdParams } from '../../../../../protocol/api/repos';
import { callerOf, send } from '../../context';
import { errors } from '../../../common/error-responses';

/** /v2/files/{repo_id}: the files of a repository; /v2/files/{repo_id}/{file_id}/content: one file's text. */
export async function filesRoutes(fastify: FastifyInstance, ops: Operations): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get('/v2/files/:repo_id', {
    schema: {
      operationId: 'listFiles', tags: ['files'], summary: 'List a repository\'s files with documentation hints (1 credit)',
      params: RepoIdParams,
      querystring: ListFilesQuery,
      response: { 200: PagedEnvelope(Type.Array(FileItem)), ...errors(400, 401, 402, 404) },
    },
  }, async (request, reply) => send(reply, await ops.files.list(callerOf(request), { ...request.params, ...request.query })));

  app.get('/v2/files/:repo_id/:file_id/content', {
    schema: {
      operationId: 'fileContent', tags: ['files'], summary: 'One file\'s text as indexed (1 credit)',
      description: 'What an editor shows for a file of a repository it does not have on disk (the VS Code extension opens a team server\'s hits with it).',
      params: FileDocParams,
      response: { 200: Envelope(FileContent), ...errors(400, 401, 402, 404) },
    },
  }, async (request, reply) => send(reply, await ops.files.content(callerOf(request), request.params)));
}
