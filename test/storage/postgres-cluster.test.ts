import { test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { startPostgres } from '../helpers/postgres';

// The PostgreSQL harness every team-server test stands on: a real, private cluster that starts,
// has the contrib extensions the backend needs, hands out empty databases, and is gone after stop().
test('a private PostgreSQL cluster starts on loopback, creates databases with pg_trgm, and stops', async () => {
  const cluster = await startPostgres();
  try {
    const url = await cluster.createDatabase('harness');
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query<{ v: string }>("SELECT current_setting('server_version') AS v");
      assert.match(rows[0]!.v, /^1[5-9]/);
      await client.query('CREATE EXTENSION pg_trgm');
      const sim = await client.query<{ s: number }>("SELECT similarity('handler', 'handlers') AS s");
      assert.ok(sim.rows[0]!.s > 0.5);
    } finally {
      await client.end();
    }
  } finally {
    await cluster.stop();
  }
  const after = new pg.Client({ connectionString: cluster.url, connectionTimeoutMillis: 1000 });
  await assert.rejects(after.connect());
});
