import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { copyFixture, createTestApp, tempDir } from '../helpers/engine';
import { addUser } from '../accounts/helpers';
import { loadAccountsConfig } from '../../server/engine/accounts/config-file';

/** What a refusal looks like to a client: everything but the path it named. */
const shape = (res: { status: number; body: any }, url: string) => ({ status: res.status, code: res.body.code, message: String(res.body.message).split(url).join('<url>') });

/** What a user has on record: charges, history rows and repositories added. */
function footprint(t: Awaited<ReturnType<typeof createTestApp>>, userId: string) {
  return {
    credits: t.engine.accounts.meta(userId).credits_used,
    history: (t.engine.db.prepare('SELECT COUNT(*) AS n FROM history WHERE user_id = ?').get(userId) as { n: number }).n,
    repos: t.engine.reposStore.countForUser(userId),
  };
}

test('attack: another user indexes (or reads) a local folder the owner indexed, or probes paths: the same refusal as for nothing, nothing written', async () => {
  const t = await createTestApp();
  try {
    const folder = copyFixture('ts-paths');
    const owned = await t.call('POST', '/v2/repos/index/new', { url: folder });
    assert.equal(owned.status, 200, JSON.stringify(owned.body));
    const repoId = owned.body.data.repo.repo_id;
    await t.engine.queue.idle();
    const unindexed = copyFixture('ts-paths');
    const nothing = path.join(path.dirname(unindexed), 'does-not-exist');
    const aFile = path.join(folder, 'package.json');
    const b = addUser(t, { plan: 'PRO', credits: 1000 });
    const before = footprint(t, b.userId);

    const answers = [];
    for (const url of [folder, unindexed, nothing, aFile, '/etc']) {
      const res = await b.as('POST', '/v2/repos/index/new', { url });
      answers.push(shape(res, url));
    }
    assert.equal(answers[0].status, 403);
    assert.equal(answers[0].code, 'PATH_NOT_ALLOWED');
    for (const a of answers) assert.deepEqual(a, answers[0], 'indexed, unindexed, missing, a file and outside --allow all answer alike');

    // Reading it by id, URL or status is the 404 of a repository that does not exist.
    const ghost = '00000000-0000-4000-8000-000000000000';
    assert.deepEqual(shape(await b.as('GET', `/v2/files/${repoId}`), repoId), shape(await b.as('GET', `/v2/files/${ghost}`), ghost));
    assert.deepEqual(shape(await b.as('POST', '/v2/repos/status', { url: folder }), folder), shape(await b.as('POST', '/v2/repos/status', { url: nothing }), nothing));
    const searched = await b.as('POST', '/v2/search', { query: 'area', repo_ids: [repoId] });
    assert.equal(searched.status, 400);
    assert.equal(searched.body.code, 'UNKNOWN_REPOSITORIES');
    assert.deepEqual(footprint(t, b.userId), { ...before, credits: before.credits }, 'no repository added to B, nothing charged, no history');
    assert.equal((await t.call('GET', `/v2/files/${repoId}`)).status, 200, 'the owner still reads it');
  } finally {
    await t.close();
  }
});

test('the owner shares a local folder in accounts.json (sharedFolders): those users may index inside it, nobody else, nothing outside it', async () => {
  const dataDir = tempDir('loupe-share-data-');
  const shared = copyFixture('ts-paths');
  const other = copyFixture('ts-paths');
  fs.writeFileSync(path.join(dataDir, 'accounts.json'), JSON.stringify({ sharedFolders: [{ path: path.dirname(shared), users: ['Ada@Example.test'] }] }));
  const t = await createTestApp({ dataDir, accounts: loadAccountsConfig(path.join(dataDir, 'accounts.json')) });
  try {
    const ada = addUser(t, { plan: 'PRO', credits: 100, email: 'ada@example.test', emailProven: true });
    const bob = addUser(t, { plan: 'PRO', credits: 100, email: 'bob@example.test', emailProven: true });
    const res = await ada.as('POST', '/v2/repos/index/new', { url: shared });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    await t.engine.queue.idle();
    assert.equal((await ada.as('GET', `/v2/files/${res.body.data.repo.repo_id}`)).status, 200);
    const outside = await ada.as('POST', '/v2/repos/index/new', { url: other });
    assert.equal(outside.status, 403, 'a folder outside the share');
    const notShared = await bob.as('POST', '/v2/repos/index/new', { url: shared });
    assert.deepEqual(shape(notShared, shared), shape(outside, other), 'a user the folder is not shared with');
    assert.equal((await bob.as('GET', `/v2/files/${res.body.data.repo.repo_id}`)).status, 404);
    assert.throws(() => loadAccountsConfig(writeJson({ sharedFolders: [{ path: 'relative', users: ['*'] }] })), /sharedFolders\[0\]\.path: must be an absolute folder path/);
    assert.throws(() => loadAccountsConfig(writeJson({ sharedFolders: [{ path: '/x', users: [] }] })), /sharedFolders\[0\]\.users/);
  } finally {
    await t.close();
  }
});

test('attack: a password sign-up under the address a folder is shared with gets nothing until a code mailed to that address is entered', async () => {
  const dataDir = tempDir('loupe-share-claim-');
  const shared = copyFixture('ts-paths');
  fs.writeFileSync(path.join(dataDir, 'accounts.json'), JSON.stringify({ sharedFolders: [{ path: path.dirname(shared), users: ['ada@example.test'] }] }));
  // A server that lets a password sign-up in without a mailed code (the default asks for one).
  const t = await createTestApp({ dataDir, accounts: { ...loadAccountsConfig(path.join(dataDir, 'accounts.json')), auth: { passwordSignupRequiresVerification: false } } });
  try {
    // Mallory signs up first, with a password, under Ada's address: the account works at once,
    // but nothing shows the address is hers.
    const signup = await t.call('POST', '/v2/auth/authenticate', { auth_mode: 'password', email: 'ada@example.test', should_create_user: true },
      { 'x-service-auth-password': 'correct horse battery staple' });
    assert.equal(signup.status, 200, JSON.stringify(signup.body));
    const key = signup.body.data.api_key.key;
    const claimed = await t.call('POST', '/v2/repos/index/new', { url: shared }, { 'x-api-key': key });
    assert.equal(claimed.status, 403, 'an unproven address is not the address the folder is shared with');
    assert.equal(claimed.body.code, 'PATH_NOT_ALLOWED');

    // The real owner of the address signs in with a code mailed to it: now the share applies.
    assert.equal((await t.call('POST', '/v2/auth/authenticate', { auth_mode: 'otp', email: 'ada@example.test' })).status, 200);
    const outbox = path.join(t.dataDir, 'outbox');
    const eml = fs.readFileSync(path.join(outbox, fs.readdirSync(outbox).sort().pop()!), 'utf8');
    const code = /code is (\d{6})/.exec(eml)![1];
    const verified = await t.call('POST', '/v2/auth/verify', { email: 'ada@example.test', token: code });
    assert.equal(verified.status, 200, JSON.stringify(verified.body));
    const proven = await t.call('POST', '/v2/repos/index/new', { url: shared }, { 'x-api-key': verified.body.data.api_key.key });
    assert.equal(proven.status, 200, JSON.stringify(proven.body));
    await t.engine.queue.idle();
  } finally {
    await t.close();
  }
});

const writeJson = (value: unknown) => {
  const file = path.join(tempDir('loupe-accounts-json-'), 'accounts.json');
  fs.writeFileSync(file, JSON.stringify(value));
  return file;
};

/**
 * A test double of the GitHub REST API (a remote service), on 127.0.0.1: GET /user names a token's
 * account; GET /repos/acme/secret answers 200 {private: true} to the tokens that may read it and
 * 404 to anyone else, as GitHub does. git itself reaches "github.com" through url.insteadOf a
 * folder that holds no such repository, so a tokenless probe fails as it does for a private one.
 */
async function fakeGithub(readers: Set<string>) {
  const seen: string[] = [];
  const logins: Record<string, string> = { 'server-token-0000': 'owner', 'tok-bee-1111': 'bee', 'tok-cee-2222': 'cee' };
  const server = http.createServer((req, res) => {
    const token = (req.headers.authorization ?? '').replace(/^Bearer /, '');
    seen.push(`${req.url} ${token || '-'}`);
    const json = (status: number, body: unknown) => { res.writeHead(status, { 'content-type': 'application/json' }); res.end(JSON.stringify(body)); };
    if (req.url === '/user') return logins[token] ? json(200, { login: logins[token] }) : json(401, { message: 'Bad credentials' });
    if (req.url === '/repos/acme/secret' && readers.has(token)) return json(200, { full_name: 'acme/secret', private: true });
    return json(404, { message: 'Not Found' });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const hub = tempDir('loupe-empty-hub-');
  process.env.GIT_CONFIG_COUNT = '1';
  process.env.GIT_CONFIG_KEY_0 = `url.file://${hub}/.insteadOf`;
  process.env.GIT_CONFIG_VALUE_0 = 'https://github.com/';
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, close: () => new Promise((r) => server.close(r)) };
}

test('private GitHub repositories: probed with the caller\'s own linked token, never the server\'s; without the right, the answer of a repository that does not exist', { timeout: 120_000 }, async () => {
  const readers = new Set(['server-token-0000', 'tok-bee-1111']);
  const github = await fakeGithub(readers);
  const t = await createTestApp({ githubApiUrl: github.url, githubToken: 'server-token-0000' });
  try {
    const bee = addUser(t, { plan: 'PRO', credits: 100 });
    const cee = addUser(t, { plan: 'PRO', credits: 100 });
    const url = 'https://github.com/acme/secret';
    const missing = 'https://github.com/acme/nothing';

    // Without a linked token the server's GITHUB_TOKEN is not used for them: same answer as a repository that does not exist.
    const refused = await bee.as('POST', '/v2/repos/index/new', { url });
    assert.deepEqual(shape(refused, url), shape(await bee.as('POST', '/v2/repos/index/new', { url: missing }), missing));
    assert.equal(refused.body.code, 'NOT_A_REPOSITORY');
    assert.ok(!github.seen.some((s) => s.includes('server-token-0000')), github.seen.join('\n'));

    // Linking: checked with GitHub; a token it refuses is a 400 and nothing is stored; the token is never returned.
    const bad = await bee.as('PUT', '/v2/keys/github-token', { token: 'not-a-real-token' });
    assert.equal(bad.status, 400, JSON.stringify(bad.body));
    assert.equal((await bee.as('GET', '/v2/keys/github-token')).body.data.linked, false);
    const linked = await bee.as('PUT', '/v2/keys/github-token', { token: 'tok-bee-1111' });
    assert.equal(linked.status, 200, JSON.stringify(linked.body));
    assert.deepEqual({ ...linked.body.data, linked_at: 'x' }, { linked: true, login: 'bee', token_hint: '1111', linked_at: 'x' });
    assert.ok(!JSON.stringify(linked.body).includes('tok-bee-1111'));

    const added = await bee.as('POST', '/v2/repos/index/new', { url });
    assert.equal(added.status, 200, JSON.stringify(added.body));
    assert.equal(added.body.data.repo.visibility, 'private');
    const repoId = added.body.data.repo.repo_id;
    assert.ok(github.seen.includes('/repos/acme/secret tok-bee-1111'));
    assert.ok(!github.seen.some((s) => s.includes('server-token-0000')), 'the server token is never sent for a user who is not the owner');
    await t.engine.queue.idle();
    assert.equal((await bee.as('POST', '/v2/repos/status', { url })).status, 200);

    // Another user, without a token GitHub accepts for it: index/new, status and reads answer as for nothing.
    const ghost = '00000000-0000-4000-8000-000000000000';
    assert.deepEqual(shape(await cee.as('POST', '/v2/repos/index/new', { url }), url), shape(await cee.as('POST', '/v2/repos/index/new', { url: missing }), missing));
    assert.deepEqual(shape(await cee.as('POST', '/v2/repos/status', { url }), url), shape(await cee.as('POST', '/v2/repos/status', { url: missing }), missing));
    assert.deepEqual(shape(await cee.as('GET', `/v2/files/${repoId}`), repoId), shape(await cee.as('GET', `/v2/files/${ghost}`), ghost));
    assert.equal((await cee.as('PUT', '/v2/keys/github-token', { token: 'tok-cee-2222' })).status, 200);
    assert.equal((await cee.as('POST', '/v2/repos/index/new', { url })).status, 400, 'a linked token GitHub does not let read it changes nothing');
    assert.equal(t.engine.reposStore.countForUser(cee.userId), 0);
    readers.add('tok-cee-2222');
    assert.equal((await cee.as('POST', '/v2/repos/index/new', { url })).status, 200, 'once GitHub lets their token read it, they may add it');

    // The owner's probe uses the server's token.
    assert.equal((await t.call('POST', '/v2/repos/index/new', { url })).status, 200);
    assert.ok(github.seen.includes('/repos/acme/secret server-token-0000'));

    // Unlinking forgets it; the token is nowhere in the data dir in plaintext.
    assert.equal((await bee.as('DELETE', '/v2/keys/github-token')).body.data.linked, false);
    await t.engine.queue.idle(); // the clones queued above are done writing (and removing) their folders
    t.engine.db.pragma('wal_checkpoint(TRUNCATE)');
    for (const file of walk(t.dataDir)) {
      const bytes = fs.readFileSync(file);
      for (const secret of ['tok-bee-1111', 'tok-cee-2222', 'server-token-0000']) assert.ok(!bytes.includes(secret), `${secret} in ${file}`);
    }
  } finally {
    await t.close();
    await github.close();
  }
});

function walk(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}
