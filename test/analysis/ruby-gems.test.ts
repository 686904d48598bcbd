import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createTestApp } from '../helpers/engine';
import { copyOf, debianPackage } from '../helpers/real-code';

/**
 * A Ruby `require` names a file, and the gem that holds it is the declared one whose name, `-` read as `/`, starts
 * the path: sinatra 3.0.5 (Debian, its gemspec beside lib/ as in a checkout) requires 'rack/protection' from the
 * rack-protection gem it declares. Before, every require counted under its first folder: rack-protection was
 * imported by no file and rack by the file that uses rack-protection.
 */
test('blueprint dependencies: a require belongs to the declared gem its path spells (sinatra)', async () => {
  const gems = path.join(debianPackage('ruby-sinatra', '3.0.5-3+deb12u1'), 'usr/share/rubygems-integration/all');
  const root = copyOf(path.join(gems, 'gems/sinatra-3.0.5'), 'loupe-sinatra-');
  fs.copyFileSync(path.join(gems, 'specifications/sinatra-3.0.5.gemspec'), path.join(root, 'sinatra.gemspec'));
  const t = await createTestApp();
  try {
    const res = await t.call('POST', '/v2/repos/index/new', { url: root });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    await t.engine.queue.idle();
    const bp = await t.call('GET', `/v2/repos/${res.body.data.repo.repo_id}/blueprint`);
    assert.equal(bp.status, 200, JSON.stringify(bp.body));
    const deps = Object.fromEntries(bp.body.data.dependencies.map((d: { name: string; files: number }) => [d.name, d.files]));
    assert.equal(deps['rack-protection'], 1, JSON.stringify(deps)); // lib/sinatra/base.rb
    assert.equal(deps.rack, 2, JSON.stringify(deps)); // base.rb (rack), show_exceptions.rb (rack/show_exceptions)
    assert.equal(deps.mustermann, 1, JSON.stringify(deps)); // base.rb: mustermann, mustermann/sinatra, mustermann/regular
  } finally {
    await t.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
});
