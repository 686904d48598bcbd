import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createTestApp, tempDir } from '../helpers/engine';
import { mountSmallDisk } from '../helpers/small-disk';

/**
 * Attack/fault: the disk under DATA_DIR/outbox fills up while a user signs up with a one-time code
 * (no SMTP: the code is written to the outbox). The answer is 507 STORAGE_FULL ("free space"), not
 * 503 "the mail service is unavailable" (which tells a client to retry a mail server that is fine);
 * no half-written message stays and no code is left behind that nobody received.
 */
test('a full disk during OTP sign-up answers 507 STORAGE_FULL; no code or partial message is kept', { timeout: 60_000 }, async (t) => {
  const dataDir = tempDir('loupe-full-outbox-');
  const outbox = path.join(dataDir, 'outbox');
  fs.mkdirSync(outbox);
  // A real 1 MB filesystem at the outbox (tmpfs; the tests run as root in CI containers).
  const disk = mountSmallDisk(1);
  if (!disk) return t.skip('needs mount rights for a real small filesystem');
  let app;
  try {
    fs.rmdirSync(outbox);
    fs.symlinkSync(disk.dir, outbox);
    // Fill it.
    const filler = path.join(disk.dir, 'filler');
    const block = Buffer.alloc(64 * 1024, 1);
    try { for (;;) fs.appendFileSync(filler, block); } catch (error) { assert.equal((error as NodeJS.ErrnoException).code, 'ENOSPC'); }
    try { for (;;) fs.appendFileSync(filler, Buffer.alloc(512, 1)); } catch { /* the last bytes */ }

    app = await createTestApp({ dataDir });
    const res = await app.app.inject({
      method: 'POST', url: '/v2/auth/authenticate',
      payload: { auth_mode: 'otp', email: 'new@example.test', should_create_user: true },
    });
    const body = JSON.parse(res.body);
    assert.equal(res.statusCode, 507, res.body);
    assert.equal(body.code, 'STORAGE_FULL');
    assert.match(body.message, /is full; free some space/);
    assert.deepEqual(fs.readdirSync(disk.dir), ['filler'], 'no half-written message');
    const codes = app.engine.db.prepare('SELECT COUNT(*) AS n FROM otp_codes').get() as { n: number };
    assert.equal(codes.n, 0, 'no code that nobody received');

    // Once there is room the same sign-up goes through (the account rows were kept).
    fs.rmSync(filler);
    const again = await app.app.inject({
      method: 'POST', url: '/v2/auth/authenticate',
      payload: { auth_mode: 'otp', email: 'new@example.test', should_create_user: true },
    });
    assert.equal(again.statusCode, 200, again.body);
    assert.equal(fs.readdirSync(disk.dir).filter((f) => f.endsWith('.eml')).length, 1);
  } finally {
    await app?.close();
    disk.unmount();
  }
});
