import { Type } from 'typebox';
import { Limit, Nullable, Offset, StringEnum, Uuid } from './common';

export const KeyItem = Type.Object({
  key_id: Uuid,
  key: Type.String({ description: 'Masked: the first and last 4 characters.' }),
  kind: StringEnum(['primary', 'session', 'agent'], {
    description: 'primary: your main key; session: minted at a sign-in, expires with the session; agent: a short-lived agent credential.',
  }),
  state: StringEnum(['agent_pending', 'active', 'disabled'], {
    description: 'agent_pending until the sign-up code is verified; disabled after DELETE, regeneration or expiry.',
  }),
  primary: Type.Boolean(),
  created_at: Type.String({ format: 'date-time' }),
  last_used_at: Nullable(Type.String({ format: 'date-time' }), { description: 'Updated at most once a minute.' }),
  expires_at: Nullable(Type.String({ format: 'date-time' })),
  disabled_at: Nullable(Type.String({ format: 'date-time' })),
}, { $id: 'KeyItem', description: 'An API key, masked.' });

export const RegenerateRequest = Nullable(Type.Object({}, { additionalProperties: false }), {
  description: 'No body, or an empty JSON object.',
});

export const RegeneratedKey = Type.Object({
  key: { ...Uuid, description: 'The new primary key in plaintext: shown this once, stored only as a hash.' },
  key_id: Uuid,
  key_state: Type.Literal('active'),
  replaced_key_ids: Type.Array(Uuid, { description: 'The previous primary key(s), now disabled (with their agent credentials).' }),
});

export const KeyIdParams = Type.Object({ key_id: Type.String({ minLength: 1, maxLength: 100, description: 'A key_id from GET /v2/keys.' }) });

export const KeysQuery = Type.Object({
  limit: Limit(100, 50),
  offset: Offset,
}, { additionalProperties: false });

export const GithubTokenRequest = Type.Object({
  token: Type.String({
    minLength: 8, maxLength: 255,
    description: 'A GitHub token (classic or fine-grained) that can read your private repositories. Checked with GitHub, stored encrypted, never returned.',
  }),
}, { additionalProperties: false });

export const GithubLink = Type.Object({
  linked: Type.Boolean(),
  login: Nullable(Type.String(), { description: 'The GitHub account of the token, as GitHub named it when it was linked.' }),
  token_hint: Nullable(Type.String(), { description: 'The last four characters of the token.' }),
  linked_at: Nullable(Type.String({ format: 'date-time' })),
}, { $id: 'GithubLink', description: 'Your linked GitHub token (never the token itself).' });
