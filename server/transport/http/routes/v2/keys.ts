import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Operations } from '../../../../engine/operations';
import { Envelope, PagedEnvelope } from '../../../../../protocol/api/common';
import { GithubLink, GithubTokenRequest, KeyIdParams, KeyItem, KeysQuery, RegeneratedKey, RegenerateRequest } from '../../../../../protocol/api/keys';
import { callerOf, send } from '../../context';
import { errors } from '../../../common/error-responses';

/** /v2/keys…: list (masked), rotate and disable the caller's keys (free). */
export async function keysRoutes(fastify: FastifyInstance, ops: Operations): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get('/v2/keys', {
    schema: {
      operationId: 'listKeys', tags: ['keys'], summary: 'Your keys, masked, newest first, a page at a time (free)',
      querystring: KeysQuery,
      response: { 200: PagedEnvelope(Type.Array(KeyItem)), ...errors(400, 401) },
    },
  }, async (request, reply) => send(reply, await ops.keys.list(callerOf(request), request.query)));

  app.post('/v2/keys/regenerate', {
    schema: {
      operationId: 'regenerateKey', tags: ['keys'], summary: 'A new primary key; the old primary key stops working (free)',
      body: RegenerateRequest,
      response: { 200: Envelope(RegeneratedKey), ...errors(400, 401) },
    },
  }, async (request, reply) => send(reply, await ops.keys.regenerate(callerOf(request))));

  app.put('/v2/keys/github-token', {
    schema: {
      operationId: 'linkGithubToken', tags: ['keys'],
      summary: 'Link your own GitHub token: your private GitHub repositories are probed and cloned with it, never with the server\'s (free)',
      body: GithubTokenRequest,
      response: { 200: Envelope(GithubLink), ...errors(400, 401, 503) },
    },
  }, async (request, reply) => send(reply, await ops.keys.linkGithub(callerOf(request), request.body)));

  app.get('/v2/keys/github-token', {
    schema: {
      operationId: 'getGithubToken', tags: ['keys'], summary: 'Whether you linked a GitHub token (its last four characters only) (free)',
      response: { 200: Envelope(GithubLink), ...errors(401) },
    },
  }, async (request, reply) => send(reply, await ops.keys.githubStatus(callerOf(request))));

  app.delete('/v2/keys/github-token', {
    schema: {
      operationId: 'unlinkGithubToken', tags: ['keys'], summary: 'Forget your linked GitHub token (free)',
      response: { 200: Envelope(GithubLink), ...errors(401) },
    },
  }, async (request, reply) => send(reply, await ops.keys.unlinkGithub(callerOf(request))));

  app.delete('/v2/keys/:key_id', {
    schema: {
      operationId: 'disableKey', tags: ['keys'], summary: 'Disable a key (and its agent credentials); it gets 401 from then on (free)',
      params: KeyIdParams,
      response: { 200: Envelope(KeyItem), ...errors(401, 404) },
    },
  }, async (request, reply) => send(reply, await ops.keys.disable(callerOf(request), request.params)));
}
