import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Operations } from '../../../../engine/operations';
import { FileDocEnvelope, FileDocParams, FileDocQuery } from '../../../../../protocol/api/analysis';
import { callerOf, send } from '../../context';
import { errors } from '../../../common/error-responses';

/** GET /v2/files/{repo_id}/{file_id}: one file's documentation, generated in the background. */
export async function fileDocsRoutes(fastify: FastifyInstance, ops: Operations): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get('/v2/files/:repo_id/:file_id', {
    schema: {
      operationId: 'fileDocs', tags: ['files'],
      summary: 'Markdown documentation for one file (2 credits when ready; 0 while processing)',
      description: 'While the documentation is generated, `meta.processing` is true, `data.documentation` is null and nothing is charged; ask again shortly. `fields` picks the depth; without it the deepest depth the plan allows is returned (`meta.fields_applied`). Asking for a depth the plan lacks is a 403.',
      params: FileDocParams,
      querystring: FileDocQuery,
      response: { 200: FileDocEnvelope, ...errors(400, 401, 402, 403, 404) },
    },
  }, async (request, reply) => send(reply, await ops.files.doc(callerOf(request), { ...request.params, ...request.query })));
}
