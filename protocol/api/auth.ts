import { Type, type Static } from 'typebox';
import { Nullable, StringEnum, Uuid } from './common';

const Email = Type.String({ format: 'email', maxLength: 254, description: 'A valid email address (compared case-insensitively).' });
const AuthMode = StringEnum(['otp', 'password']);

export const AuthenticateRequest = Type.Object({
  auth_mode: Type.Optional({ ...AuthMode, description: '`otp` (a 6-digit code by email) or `password` (the password in the X-Service-Auth-Password header). Required unless `mode` is given.' }),
  mode: Type.Optional({ ...AuthMode, description: 'Alias of auth_mode.' }),
  email: Email,
  should_create_user: Type.Optional(Type.Boolean({ default: false, description: 'true registers a new account, false signs in.' })),
  data: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { maxProperties: 20, description: 'Profile data for a new account, e.g. {"full_name": "Ada"}.' })),
}, { additionalProperties: false, description: 'Passwords are never accepted in the body: send X-Service-Auth-Password (or X-Auth-Password). Minimum length 10 characters, maximum 1024.' });
export type AuthenticateRequest = Static<typeof AuthenticateRequest>;

export const AuthHeaders = Type.Object({
  'x-service-auth-password': Type.Optional(Type.String({ description: 'Password mode only: the password (10-1024 characters for a new account).' })),
  'x-auth-password': Type.Optional(Type.String({ description: 'Alias of X-Service-Auth-Password.' })),
});

export const VerifyRequest = Type.Object({
  email: Email,
  token: Type.String({ pattern: '^[0-9]{6}$', description: 'The 6-digit code from the email.' }),
}, { additionalProperties: false });

export const ResendRequest = Type.Object({
  email: Email,
  type: StringEnum(['signup', 'email_change', 'email'], {
    default: 'signup', description: 'signup: a new sign-up code; email: a sign-in code; email_change: not used by Loupe (400).',
  }),
}, { additionalProperties: false });

export const Session = Type.Object({
  access_token: Type.String({ description: 'Opaque bearer token (43 characters); accepted as `Authorization: Bearer <token>` in place of X-API-Key.' }),
  token_type: Type.Literal('bearer'),
  expires_at: Type.String({ format: 'date-time' }),
  expires_in: Type.Integer({ description: 'Seconds until expiry (30 days by default).' }),
  user_id: Uuid,
}, { $id: 'Session', description: 'A sign-in session. Only its hash is stored; it ends at expires_at or when its key is disabled.' });

export const AuthResult = Type.Object({
  user_id: Nullable(Uuid, { description: 'null while an OTP sign-in waits for its code (the answer does not reveal whether the account exists).' }),
  email: Type.String(),
  session: Nullable(Session, { description: 'null until verification.' }),
  verification_required: Type.Boolean(),
  api_key: Nullable(Type.Object({
    key: Type.Optional({ ...Uuid, description: 'The plaintext key, only in the response that hands it out; use it as X-API-Key.' }),
    key_id: Uuid,
    key_state: StringEnum(['agent_pending', 'active']),
  })),
}, { description: 'The authentication result.' });

export const ResendResult = Type.Object({
  email: Type.String(),
  type: Type.String(),
});
