import type { Static } from 'typebox';
import { LoupeError } from '../errors';
import type { AuthResult, MailListener } from '../accounts/auth';
import type { AuthenticateRequest, ResendRequest, VerifyRequest } from '../../../protocol/api/auth';
import type { Answer, CallContext, Caller } from './call';
import { metered } from './metering';
import type { EngineParts } from './parts';

/** What a transport found on the wire that may identify a caller. */
export interface Credentials {
  /** X-API-Key (or an A2A message's key). */
  apiKey?: string;
  /** A session token from /v2/auth (`Authorization: Bearer …`), used when there is no key. */
  sessionToken?: string;
}

/** Sign-up, sign-in and the caller behind a request. The routes that use these take no key. */
export class AuthOperations {
  constructor(private readonly e: EngineParts) {}

  /** The caller behind the credentials, or 401: the key, else the session (which acts as the key it was opened with). */
  async caller(credentials: Credentials): Promise<Caller> {
    if (credentials.apiKey === undefined && credentials.sessionToken !== undefined) return this.e.auth.callerForSessionAsync(credentials.sessionToken);
    return this.e.accounts.authenticateAsync(credentials.apiKey);
  }

  /**
   * Sign up or sign in with an emailed code or a password. The password comes from a header only
   * (the transport hands it in `password`); `mode` is an alias of `auth_mode`.
   */
  authenticate(request: AuthenticateRequest & { password?: string }, context: CallContext = {}): Promise<Answer<AuthResult>> {
    return metered(this.e.accounts, null, { operation: 'auth.authenticate', cost: 0 }, async (meter) => {
      if (request.auth_mode && request.mode && request.auth_mode !== request.mode) {
        throw new LoupeError('VALIDATION_FAILED', 'mode: is an alias of auth_mode and must match it', { field: 'mode' });
      }
      const mode = request.auth_mode ?? request.mode;
      if (!mode) throw new LoupeError('VALIDATION_FAILED', 'auth_mode: is required (otp or password; alias mode)', { field: 'auth_mode' });
      const result = await this.e.auth.authenticate({
        mode, email: request.email, shouldCreateUser: request.should_create_user ?? false, data: request.data,
        password: request.password, client: context.client ?? 'unknown',
      });
      return meter.answer(result, {
        message: result.verification_required ? 'if the address can sign in, a 6-digit code was sent to it; confirm with /v2/auth/verify' : 'signed in',
      });
    });
  }

  /** The emailed code for a session and an active key. */
  verify(request: Static<typeof VerifyRequest>, context: CallContext = {}): Promise<Answer<AuthResult>> {
    return metered(this.e.accounts, null, { operation: 'auth.verify', cost: 0 }, async (meter) => {
      const result = await this.e.auth.verify({ email: request.email, token: request.token, client: context.client ?? 'unknown' });
      return meter.answer(result, { message: 'verified' });
    });
  }

  /** A new code, rate limited; the answer never says whether a mail was sent. */
  resend(request: Static<typeof ResendRequest>, context: CallContext = {}): Promise<Answer<{ email: string; type: string }>> {
    return metered(this.e.accounts, null, { operation: 'auth.resend', cost: 0 }, async (meter) => {
      await this.e.auth.resend({ email: request.email, type: request.type, client: context.client ?? 'unknown' });
      return meter.answer({ email: request.email.trim().toLowerCase(), type: request.type },
        { message: 'if this address has an account that needs a code, a new one was sent' });
    });
  }

  /** Every mail sent (sign-up and sign-in codes), for an editor notification. Returns the unsubscribe. */
  onMail(listener: MailListener): () => void {
    return this.e.auth.onMail(listener);
  }
}
