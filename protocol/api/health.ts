import { Type, type Static } from 'typebox';
import { StringEnum } from './common';

/** One database a node serves from, as the readiness check saw it. */
export const HealthCheck = Type.Object({
  name: StringEnum(['sqlite', 'postgresql'], { description: 'sqlite: the data dir\'s index and accounts; postgresql: the team server\'s database.' }),
  status: StringEnum(['pass', 'fail']),
  reachable: StringEnum(['ok', 'timeout', 'unreachable'], { description: 'Whether it answered within the probe\'s time (2 s on PostgreSQL).' }),
  schema: StringEnum(['current', 'behind', 'ahead', 'unknown'], {
    description: 'current: every migration this build knows is applied; behind: some are missing (fail); ahead: a newer release migrated further (pass); unknown: not reachable.',
  }),
  latency_ms: Type.Number({ description: 'How long the probe took.' }),
}, { additionalProperties: false });
export type HealthCheck = Static<typeof HealthCheck>;

/** Liveness: the process answers. */
export const Liveness = Type.Object({
  status: Type.Literal('pass'),
}, { additionalProperties: false, description: 'The process answers requests; nothing else is checked.' });

/** Readiness: every database answers and its schema is current. */
export const Readiness = Type.Object({
  status: Type.Literal('pass'),
  checks: Type.Array(HealthCheck),
}, { additionalProperties: false, description: 'Ready to serve: every database answered and has every migration this build needs.' });
