import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Operations } from '../../../../engine/operations';
import { PagedEnvelope } from '../../../../../protocol/api/common';
import { FileItem, ListFilesQuery } from '../../../../../protocol/api/files';
import { RepoIdParams } from '../../../../../protocol/api/repos';
import { callerOf, send } from '../../context';
import { errors } from '../../../common/error-responses';

/** /v2/files/{repo_id}: the files of a repository. */
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
}
