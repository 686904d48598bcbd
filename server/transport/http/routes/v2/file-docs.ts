import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Engine } from '../../../../engine/engine';
import type { DocDepth } from '../../../../engine/accounts/plans';
import { FileDocEnvelope, FileDocParams, FileDocQuery } from '../../../../../protocol/api/analysis';
import { callerOf, ok } from '../../context';
import { errors } from '../../../common/error-responses';

const ORDER: DocDepth[] = ['basic', 'summary', 'full'];

/** GET /v2/files/{repo_id}/{file_id}: one file's documentation, generated in the background. */
export async function fileDocsRoutes(fastify: FastifyInstance, engine: Engine): Promise<void> {
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
    config: { cost: 2, operation: 'files.docs', history: 'docs' },
  }, async (request, reply) => {
    const caller = callerOf(request);
    const repo = engine.repos.resolve(caller, request.params.repo_id);
    const file = engine.files.resolve(repo, request.params.file_id);
    const allowed = engine.accounts.planOf(caller.plan).depths;
    let depth: DocDepth;
    if (request.query.fields) {
      engine.accounts.requireDepth(caller, request.query.fields);
      depth = request.query.fields;
    } else {
      depth = [...ORDER].reverse().find((d) => allowed.includes(d)) ?? 'basic';
    }
    const answer = engine.docs.get(repo.id, file, depth);
    const data = {
      id: file.uid, file_path: file.path, file_name: file.name, language: file.language, total_lines: file.lines,
      documentation: answer.state === 'ready' ? answer.markdown : null,
      generator: answer.state === 'ready' ? answer.generator : null,
      generated_at: answer.state === 'ready' ? answer.generatedAt : null,
    };
    const processing = answer.state === 'processing';
    return ok(engine, request, reply, data, {
      cost: processing ? 0 : undefined,
      message: processing ? 'documentation is being generated; ask again shortly (not charged)' : undefined,
      meta: { processing, fields_applied: depth },
    });
  });
}
