import { Type } from 'typebox';
import { Uuid } from './common';

export const KeyItem = Type.Object({
  key_id: Uuid,
  key: Type.String({ description: 'Masked: the first and last 4 characters.' }),
  kind: Type.Union([Type.Literal('primary'), Type.Literal('session'), Type.Literal('agent')], {
    description: 'primary: your main key; session: minted at a sign-in, expires with the session; agent: a short-lived agent credential.',
  }),
  state: Type.Union([Type.Literal('agent_pending'), Type.Literal('active'), Type.Literal('disabled')], {
    description: 'agent_pending until the sign-up code is verified; disabled after DELETE, regeneration or expiry.',
  }),
  primary: Type.Boolean(),
  created_at: Type.String({ format: 'date-time' }),
  last_used_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'Updated at most once a minute.' }),
  expires_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  disabled_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
}, { $id: 'KeyItem', description: 'An API key, masked.' });

export const RegenerateRequest = Type.Union([Type.Object({}, { additionalProperties: false }), Type.Null()], {
  description: 'No body, or an empty JSON object.',
});

export const RegeneratedKey = Type.Object({
  key: { ...Uuid, description: 'The new primary key in plaintext: shown this once, stored only as a hash.' },
  key_id: Uuid,
  key_state: Type.Literal('active'),
  replaced_key_ids: Type.Array(Uuid, { description: 'The previous primary key(s), now disabled (with their agent credentials).' }),
});

export const KeyIdParams = Type.Object({ key_id: Type.String({ minLength: 1, maxLength: 100, description: 'A key_id from GET /v2/keys.' }) });
