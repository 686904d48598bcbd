import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Operations } from '../../../../engine/operations';
import { LoupeError } from '../../../../engine/errors';
import { Envelope } from '../../../../../protocol/api/common';
import { AuthenticateRequest, AuthHeaders, AuthResult, ResendRequest, ResendResult, VerifyRequest } from '../../../../../protocol/api/auth';
import { callContext, send } from '../../context';
import { errors } from '../../../common/error-responses';

/** /v2/auth/*: sign-up and sign-in without a key. Passwords come only from headers and are never echoed. */
export async function authRoutes(fastify: FastifyInstance, ops: Operations): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.post('/v2/auth/authenticate', {
    schema: {
      operationId: 'authenticate', tags: ['auth'], security: [],
      summary: 'Sign up or sign in with an emailed code (otp) or a password (header only)',
      description: 'otp + should_create_user: creates the account, mails a 6-digit code (10 minutes, 5 attempts, single use) and returns a key in state agent_pending, activated by /v2/auth/verify. ' +
        'otp without should_create_user: mails a code if the address has an account; the answer is the same either way. ' +
        'password: the password goes in X-Service-Auth-Password (alias X-Auth-Password), at least 10 characters; sign-up and sign-in return an active key and a session at once.',
      body: AuthenticateRequest,
      headers: AuthHeaders,
      response: { 200: Envelope(AuthResult), ...errors(400, 409, 429, 503, 507) },
    },
    config: { public: true },
    // A password in the body is refused before validation, with a message that does not repeat it.
    preValidation: async (request) => {
      const body = request.body as Record<string, unknown> | null;
      if (body && typeof body === 'object' && ('password' in body || 'pass' in body)) {
        throw new LoupeError('VALIDATION_FAILED', 'password: must not be sent in the body; use the X-Service-Auth-Password header', { field: 'password' });
      }
    },
  }, async (request, reply) => {
    const password = request.headers['x-service-auth-password'] ?? request.headers['x-auth-password'];
    return send(reply, await ops.auth.authenticate({ ...request.body, password: typeof password === 'string' ? password : undefined }, callContext(request, reply)));
  });

  app.post('/v2/auth/verify', {
    schema: {
      operationId: 'verify', tags: ['auth'], security: [],
      summary: 'Exchange the emailed code for a session and an active key',
      body: VerifyRequest,
      response: { 200: Envelope(AuthResult), ...errors(400, 429) },
    },
    config: { public: true },
  }, async (request, reply) => send(reply, await ops.auth.verify(request.body, callContext(request, reply))));

  app.post('/v2/auth/resend', {
    schema: {
      operationId: 'resend', tags: ['auth'], security: [],
      summary: 'Send a new code (rate limited; the answer does not say whether a mail was sent)',
      body: ResendRequest,
      response: { 200: Envelope(ResendResult), ...errors(400, 429, 503, 507) },
    },
    config: { public: true },
  }, async (request, reply) => send(reply, await ops.auth.resend(request.body, callContext(request, reply))));
}
