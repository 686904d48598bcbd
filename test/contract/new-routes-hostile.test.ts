import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { copyFixture, SHARE_TMP_WITH_EVERYONE } from '../helpers/engine';
import { newId } from '../../server/engine/util/ids';
import { contractBackends } from './backends';

/**
 * The routes that came after the spec — GET /health, GET /health/ready and
 * GET /v2/files/{repo_id}/{file_id}/content — attacked on both backends (backends.ts; on a team
 * server over real HTTP): no key, a forged or hostile key, another user's repository and file ids,
 * a file id of one repository under another's id, and hostile ids (traversal, absolute paths, NUL,
 * invalid UTF-8, SQL and LIKE syntax, over-long). Never a 5xx; a refused call is charged nothing
 * and writes nothing; another user's ids answer exactly as ids that do not exist; health tells
 * nothing of the server's address, paths or database.
 */
const { names, withBackend } = contractBackends({ accounts: SHARE_TMP_WITH_EVERYONE });

type Res = { status: number; body: any; headers: Record<string, unknown> };
const GHOST = '00000000-0000-4000-8000-000000000000';

/** What a refusal tells: status, code and message with the ids asked about blanked. */
function shape(res: Res, ids: string[]) {
  let message = String(res.body?.message ?? '');
  for (const id of ids) message = message.split(id).join('<id>');
  return { status: res.status, code: res.body?.code, message };
}

function assertRefused(res: Res, where: string): void {
  assert.ok(res.status >= 400 && res.status < 500, `${where}: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
  assert.equal(res.body?.status, 'error', where);
  assert.equal(typeof res.body?.code, 'string', where);
}

/** Keys a caller might send: none, forged, malformed, hostile. */
const HOSTILE_KEYS: (Record<string, string> | null)[] = [
  null,
  { 'x-api-key': '11111111-1111-4111-8111-111111111111' },
  { 'x-api-key': 'not-a-key' },
  { 'x-api-key': "' OR 1=1 --" },
  { 'x-api-key': 'x'.repeat(4000) },
  { authorization: 'Bearer 11111111-1111-4111-8111-111111111111' },
];
/** As headers of t.call, which sends the owner's key unless told otherwise: an empty X-API-Key is none. */
const withKey = (h: Record<string, string> | null): Record<string, string> => ({ 'x-api-key': '', ...h });

for (const name of names) test(`${name}: /health and /health/ready: no key needed, hostile keys ignored, nothing about the server told, nothing written`, () => withBackend(name, async (t) => {
  const before = await t.rowCounts();
  for (const headers of HOSTILE_KEYS) {
    const h = withKey(headers);
    const live = await t.call('GET', '/health', undefined, h);
    assert.equal(live.status, 200, JSON.stringify(live.body));
    assert.deepEqual(live.body, { status: 'pass' });
    assert.equal(live.headers['cache-control'], 'no-store');
    const ready = await t.call('GET', '/health/ready', undefined, h);
    assert.equal(ready.status, 200, JSON.stringify(ready.body));
    assert.equal(ready.body.status, 'pass');
    const expected = name === 'team' ? ['postgresql', 'sqlite'] : ['sqlite'];
    assert.deepEqual(ready.body.checks.map((c: any) => c.name).sort(), expected);
    for (const c of ready.body.checks) {
      assert.deepEqual(Object.keys(c).sort(), ['latency_ms', 'name', 'reachable', 'schema', 'status'], JSON.stringify(c));
      assert.equal(c.reachable, 'ok');
      assert.equal(c.schema, 'current');
    }
    // Nothing of where the server or its database is: no address, port, path, user or driver text.
    const text = JSON.stringify(ready.body) + JSON.stringify(live.body);
    assert.doesNotMatch(text, /postgres:\/\/|127\.0\.0\.1|localhost|\/tmp|loupe\.db|password|user=|ECONN/i);
  }
  // HEAD as GET without a body; other methods and neighbours of the paths are the error shape, not a probe.
  for (const url of ['/health', '/health/ready']) {
    const head = await t.inject({ method: 'HEAD', url });
    assert.equal(head.statusCode, 200);
    assert.equal(head.body, '');
    for (const method of ['POST', 'PUT', 'DELETE']) {
      const res = await t.call(method, url, method === 'DELETE' ? undefined : {}, withKey(null));
      assert.equal(res.status, 405, `${method} ${url}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.code, 'METHOD_NOT_ALLOWED');
    }
  }
  for (const url of ['/health/ready/x', '/health/..%2Fv2%2Fkeys', '/health%2Fready', '/health/ready%00', '/health/live']) {
    const res = await t.call('GET', url, undefined, withKey(null));
    assertRefused(res, url);
    assert.ok(res.status === 404 || res.status === 400, `${url}: ${res.status}`);
  }
  // A query string changes nothing and is not an input.
  assert.equal((await t.call('GET', '/health/ready?check=all&verbose=1', undefined, withKey(null))).status, 200);
  assert.deepEqual(await t.rowCounts(), before, 'health wrote something (a charge, a history row, a key use)');
}));

for (const name of names) test(`${name}: GET /v2/files/{repo_id}/{file_id}/content: no key, another user's ids, a file under another repository's id, hostile ids`, () => withBackend(name, async (t) => {
  const c = await t.setUp();
  const owner = (method: string, url: string) => t.call(method, url);
  // The owner's own read: the file's indexed text, the same as on disk, charged.
  const mine = await owner('GET', `/v2/files/${c.repoId}/${c.fileId}/content`);
  assert.equal(mine.status, 200, JSON.stringify(mine.body));
  const onDisk = fs.readFileSync(path.join(c.folder, mine.body.data.file_path), 'utf8');
  assert.equal(mine.body.data.content, onDisk);
  assert.equal(mine.body.data.repo_id, c.repoId);

  // B: a user with a repository of their own (a copy of the same files, in a folder shared with everyone).
  const b = await t.addUser({ plan: 'PRO', credits: 1000 });
  const asB = (method: string, url: string, body?: unknown) => t.call(method, url, body, { 'x-api-key': b.key });
  const bFolder = copyFixture('ts-paths');
  const bRepo = await t.index(bFolder, b.key);
  const bFiles = await asB('GET', `/v2/files/${bRepo}?search=math`);
  assert.equal(bFiles.status, 200, JSON.stringify(bFiles.body));
  const bFile = bFiles.body.data[0].id as string;
  assert.notEqual(bFile, c.fileId);
  const bOwn = await asB('GET', `/v2/files/${bRepo}/${bFile}/content`);
  assert.equal(bOwn.status, 200, JSON.stringify(bOwn.body));

  const before = await t.rowCounts();
  // No key, or a forged or hostile one: 401, before anything is read.
  for (const headers of HOSTILE_KEYS) {
    const res = await t.call('GET', `/v2/files/${c.repoId}/${c.fileId}/content`, undefined, withKey(headers));
    assertRefused(res, `content with ${JSON.stringify(headers)?.slice(0, 60)}`);
    assert.equal(res.status, 401, JSON.stringify(res.body));
    assert.doesNotMatch(JSON.stringify(res.body), /export|function/, 'no file text in a refusal');
  }
  // B asking for the owner's file: the same answer as for ids that do not exist, in every combination.
  const ghostRepo = newId();
  const ghostFile = newId();
  const cases: [string, string, string, string, string][] = [
    // what, B's url, the matching ghost url, the ids to blank in messages
    ['A\'s repo and file', `/v2/files/${c.repoId}/${c.fileId}/content`, `/v2/files/${ghostRepo}/${ghostFile}/content`, c.repoId, c.fileId],
    ['A\'s repo, A\'s file by path', `/v2/files/${c.repoId}/${encodeURIComponent(mine.body.data.file_path)}/content`, `/v2/files/${ghostRepo}/${encodeURIComponent(mine.body.data.file_path)}/content`, c.repoId, ''],
    ['A\'s repo by its folder', `/v2/files/${encodeURIComponent(c.folder)}/${c.fileId}/content`, `/v2/files/${encodeURIComponent(`${c.folder}-none`)}/${ghostFile}/content`, c.folder, c.fileId],
    ['B\'s repo, A\'s file', `/v2/files/${bRepo}/${c.fileId}/content`, `/v2/files/${bRepo}/${ghostFile}/content`, c.fileId, c.fileId],
  ];
  for (const [what, url, ghostUrl, id1, id2] of cases) {
    const theirs = await asB('GET', url);
    const none = await asB('GET', ghostUrl);
    assertRefused(theirs, `B, ${what}`);
    assert.equal(theirs.status, 404, `B, ${what}: ${JSON.stringify(theirs.body)}`);
    const blank = [id1, id2, ghostRepo, ghostFile, c.folder, `${c.folder}-none`, c.repoId, c.fileId].filter(Boolean).sort((x, y) => y.length - x.length);
    assert.deepEqual(shape(theirs, blank), shape(none, blank), `B, ${what}: tells more than a missing id`);
    assert.ok(!JSON.stringify(theirs.body).includes(mine.body.data.content.slice(0, 40)), `B, ${what}: A's text leaked`);
  }
  // The owner: B's file under the owner's repository id, and the owner's file under B's (which the owner may read).
  for (const url of [`/v2/files/${c.repoId}/${bFile}/content`, `/v2/files/${bRepo}/${c.fileId}/content`]) {
    const res = await owner('GET', url);
    assertRefused(res, `owner ${url}`);
    assert.equal(res.status, 404, `owner ${url}: a file of another repository: ${JSON.stringify(res.body)}`);
  }
  assert.deepEqual(await t.rowCounts(), before, 'a refused content call wrote something (a charge, a history row)');

  // Hostile ids, from both callers: never a 5xx, never a file outside the index, a refusal writes nothing.
  const hostile = [
    '..', '%2e%2e', '..%2F..%2F..%2F..%2Fetc%2Fpasswd', '%2Fetc%2Fpasswd', encodeURIComponent(path.join(c.folder, '..', '..', 'etc', 'passwd')),
    encodeURIComponent(path.join(c.folder, 'src')), '%00', 'a%00b', '%ED%A0%80', '%C0%AF', "'%20OR%201%3D1%20--", '%25', '_', '*', '%5C..%5C..',
    'x'.repeat(2049), `${c.fileId}%00`, `${c.fileId.toUpperCase()}`, `%20${c.fileId}`, '00000000-0000-0000-0000-000000000000',
  ];
  for (const [who, call] of [['owner', owner], ['B', asB]] as const) {
    for (const bad of hostile) {
      for (const url of [`/v2/files/${c.repoId}/${bad}/content`, `/v2/files/${bad}/${c.fileId}/content`, `/v2/files/${bad}/${bad}/content`]) {
        const counts = await t.rowCounts();
        const res = await call('GET', url);
        assert.ok(res.status < 500, `${who} ${url}: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
        assert.doesNotMatch(JSON.stringify(res.body), /root:x?:0:0/, `${who} ${url}: a file outside the index`);
        if (res.status === 200) {
          // Only the owner's own file may come back (an id spelled another way that still names it).
          assert.equal(who, 'owner', `B read ${url}`);
          assert.equal(res.body.data.repo_id, c.repoId, url);
          assert.equal(res.body.data.content, fs.readFileSync(path.join(c.folder, res.body.data.file_path), 'utf8'), url);
          continue;
        }
        assertRefused(res, `${who} ${url}`);
        assert.deepEqual(await t.rowCounts(), counts, `${who} ${url}: refused, yet something was written`);
      }
    }
  }
  // Still B's own file reads, and the ghost ids of the routine case.
  assert.equal((await asB('GET', `/v2/files/${bRepo}/${bFile}/content`)).status, 200);
  assert.equal((await asB('GET', `/v2/files/${GHOST}/${GHOST}/content`)).status, 404);
}));

