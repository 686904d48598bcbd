import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Engine } from '../../../../engine/engine';
import { LoupeError } from '../../../../engine/errors';
import { Envelope } from '../../../../../protocol/api/common';
import { AuthenticateRequest, AuthHeaders, AuthResult, ResendRequest, ResendResult, VerifyRequest } from '../../../../../protocol/api/auth';
import { ok } from '../../context';
import { errors } from '../../../common/error-responses';

/** /v2/auth/*: sign-up and sign-in without a key. Passwords come only from headers and are never echoed. */
export async function authRoutes(fastify: FastifyInstance, engine: Engine): Promise<void> {
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
      response: { 200: Envelope(AuthResult), ...errors(400, 409, 429, 503) },
    },
    config: { public: true, operation: 'auth.authenticate' },
    // A password in the body is refused before validation, with a message that does not repeat it.
    preValidation: async (request) => {
      const body = request.body as Record<string, unknown> | null;
      if (body && typeof body === 'object' && ('password' in body || 'pass' in body)) {
        throw new LoupeError('VALIDATION_FAILED', 'password: must not be sent in the body; use the X-Service-Auth-Password header', { field: 'password' });
      }
    },
  }, async (request, reply) => {
    const b = request.body;
    if (b.auth_mode && b.mode && b.auth_mode !== b.mode) {
      throw new LoupeError('VALIDATION_FAILED', 'mode: is an alias of auth_mode and must match it', { field: 'mode' });
    }
    const mode = b.auth_mode ?? b.mode;
    if (!mode) throw new LoupeError('VALIDATION_FAILED', 'auth_mode: is required (otp or password; alias mode)', { field: 'auth_mode' });
    const password = request.headers['x-service-auth-password'] ?? request.headers['x-auth-password'];
    const result = await engine.auth.authenticate({
      mode, email: b.email, shouldCreateUser: b.should_create_user ?? false, data: b.data,
      password: typeof password === 'string' ? password : undefined, client: request.ip,
    });
    return ok(engine, request, reply, result, {
      message: result.verification_required ? 'if the address can sign in, a 6-digit code was sent to it; confirm with /v2/auth/verify' : 'signed in',
    });
  });

  app.post('/v2/auth/verify', {
    schema: {
      operationId: 'verify', tags: ['auth'], security: [],
      summary: 'Exchange the emailed code for a session and an active key',
      body: VerifyRequest,
      response: { 200: Envelope(AuthResult), ...errors(400, 429) },
    },
    config: { public: true, operation: 'auth.verify' },
  }, async (request, reply) => {
    const result = await engine.auth.verify({ email: request.body.email, token: request.body.token, client: request.ip });
    return ok(engine, request, reply, result, { message: 'verified' });
  });

  app.post('/v2/auth/resend', {
    schema: {
      operationId: 'resend', tags: ['auth'], security: [],
      summary: 'Send a new code (rate limited; the answer does not say whether a mail was sent)',
      body: ResendRequest,
      response: { 200: Envelope(ResendResult), ...errors(400, 429, 503) },
    },
    config: { public: true, operation: 'auth.resend' },
  }, async (request, reply) => {
    await engine.auth.resend({ email: request.body.email, type: request.body.type, client: request.ip });
    return ok(engine, request, reply, { email: request.body.email.trim().toLowerCase(), type: request.body.type },
      { message: 'if this address has an account that needs a code, a new one was sent' });
  });
}
