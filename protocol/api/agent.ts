import { Type } from 'typebox';
import { Uuid } from './common';

export const AgentCredentialsRequest = Type.Union([Type.Object({
  rotate: Type.Optional(Type.Boolean({ default: false, description: 'Disable every live agent credential of this key before minting the new one.' })),
}, { additionalProperties: false }), Type.Null()], { description: 'Optional; no body mints a credential without rotation.' });

export const AgentCredential = Type.Object({
  key: { ...Uuid, description: 'Use as X-API-Key until expires_at; shown once.' },
  key_id: Uuid,
  expires_at: Type.String({ format: 'date-time' }),
  expires_in: Type.Integer({ description: 'Seconds (15 minutes by default).' }),
  parent_key_id: { ...Uuid, description: 'The key it was minted from; disabling that key disables this credential.' },
  rotated: Type.Boolean({ description: 'True when live credentials were disabled by this call.' }),
}, { description: 'A short-lived agent credential: same user, plan and credits as its parent key.' });
