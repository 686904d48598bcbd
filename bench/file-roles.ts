/**
 * Files a question rarely means, measured on a real monorepo: how many generated files and translations reach the top
 * five of questions about features, and where the known answer file ranks, for two builds side by side.
 *
 *   node --import tsx bench/file-roles.ts --folder /tmp/payload --baseline /tmp/base-a7a [--candidate .] [--verbose]
 *
 * The folder is payloadcms/payload (`fetch github:payloadcms/payload`, then `git archive` into a folder); the questions
 * and answer files below are payload's. Each build's CLI (`<checkout>/dist/cli.js --no-watch`; build it first) indexes
 * the folder into a fresh data dir, then answers `POST /v2/search` (scope `files`). A generated file is one whose head
 * has a generator's banner (util/generated-banner.ts, read from the folder), a translation one under a
 * locales/translations/languages folder named for a two-letter locale.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { hasGeneratorBanner } from '../server/engine/util/generated-banner';

const ANSWERED: [string, string][] = [
  ['password hashing', 'packages/payload/src/auth/strategies/local/generatePasswordSaltHash.ts'],
  ['how are passwords checked at login', 'packages/payload/src/auth/strategies/local/authenticate.ts'],
  ['where are access control functions executed', 'packages/payload/src/auth/executeAccess.ts'],
  ['generate typescript types from the config', 'packages/payload/src/bin/generateTypes.ts'],
  ['run database migrations', 'packages/payload/src/database/migrations/migrate.ts'],
  ['crop an uploaded image', 'packages/payload/src/uploads/cropImage.ts'],
  ['send email verification', 'packages/payload/src/auth/sendVerificationEmail.ts'],
  ['lock user account after too many failed login attempts', 'packages/payload/src/auth/strategies/local/incrementLoginAttempts.ts'],
  ['api key authentication strategy', 'packages/payload/src/auth/strategies/apiKey.ts'],
  ['sign the jwt token for a user', 'packages/payload/src/auth/jwt.ts'],
  ['graphql object type for a collection', 'packages/graphql/src/schema/buildObjectType.ts'],
  ['paginated list type in graphql', 'packages/graphql/src/schema/buildPaginatedListType.ts'],
];
const FEATURES = [
  'hash and verify passwords', 'how are user passwords hashed and verified?', 'forgot password email', 'unlock a locked user',
  'upload file size limit', 'delete a document and its versions', 'publish a draft version', 'autosave drafts',
  'restore a previous version', 'live preview of a document', 'bulk edit many documents', 'duplicate a document',
  'logout and clear the cookie', 'refresh the auth token', 'search documents in the admin list view',
];
const TRANSLATION = /(^|\/)(locales?|translations?|languages)\/(.*\/)?[a-z]{2}([A-Z][a-z]+|[-_][A-Za-z]+)?(\/|\.[a-z]+$)/;
const KEY = '0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e';

async function start(checkout: string, folder: string): Promise<{ child: ChildProcess; url: string; dataDir: string }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-file-roles-'));
  const child = spawn(process.execPath, [path.join(checkout, 'dist', 'cli.js'), folder, '--port', '0', '--data-dir', dataDir, '--no-watch'],
    { env: { ...process.env, LOUPE_API_KEY: KEY }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => { out += d; });
  child.stderr!.on('data', (d) => { out += d; });
  const deadline = Date.now() + 600_000;
  while (!/^indexed /m.test(out)) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`${checkout} did not index:\n${out.slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return { child, url: /Loupe API: (\S+)/.exec(out)![1], dataDir };
}

async function top(url: string, query: string, limit: number): Promise<string[]> {
  const r = await fetch(`${url}/v2/search`, { method: 'POST', headers: { 'X-API-Key': KEY, 'content-type': 'application/json' }, body: JSON.stringify({ query, scope: 'files', limit }) });
  const body = (await r.json()) as { data: { results: { file_path: string | null }[] } };
  return body.data.results.map((x) => x.file_path).filter((p): p is string => !!p);
}

async function main() {
  const { values } = parseArgs({ options: { folder: { type: 'string' }, baseline: { type: 'string' }, candidate: { type: 'string', default: '.' }, verbose: { type: 'boolean', default: false } } });
  const say = (line: string) => { if (values.verbose) process.stderr.write(`${line}\n`); };
  const folder = path.resolve(values.folder!);
  const generated = new Map<string, boolean>();
  const isGenerated = (p: string) => {
    if (!generated.has(p)) {
      let head = '';
      try { head = fs.readFileSync(path.join(folder, p), 'utf8').slice(0, 1000); } catch { /* gone */ }
      generated.set(p, hasGeneratorBanner(head));
    }
    return generated.get(p)!;
  };
  for (const [name, checkout] of [['baseline', values.baseline!], ['candidate', values.candidate!]] as const) {
    const s = await start(path.resolve(checkout), folder);
    try {
      const ranks: string[] = [];
      let rr = 0;
      let gen = 0;
      let loc = 0;
      for (const [q, answer] of ANSWERED) {
        const files = await top(s.url, q, 10);
        const at = files.indexOf(answer);
        ranks.push(at < 0 ? '–' : String(at + 1));
        if (at >= 0) rr += 1 / (at + 1);
        gen += files.slice(0, 5).filter(isGenerated).length;
        for (const p of files.slice(0, 5).filter(isGenerated)) say(`${name}: "${q}" generated ${p}`);
      }
      for (const q of FEATURES) {
        const files = await top(s.url, q, 5);
        gen += files.filter(isGenerated).length;
        loc += files.filter((p) => TRANSLATION.test(p)).length;
        for (const p of files.filter((f) => isGenerated(f) || TRANSLATION.test(f))) say(`${name}: "${q}" ${isGenerated(p) ? 'generated' : 'translation'} ${p}`);
      }
      process.stdout.write(`| ${name} | ${ranks.join(' ')} | ${(rr / ANSWERED.length).toFixed(3)} | ${gen} | ${loc} |\n`);
    } finally {
      s.child.kill('SIGTERM');
      await new Promise((r) => s.child.once('exit', r));
      fs.rmSync(s.dataDir, { recursive: true, force: true });
    }
  }
  process.stdout.write(`(${ANSWERED.length} questions with an answer file: its rank in the top 10 and MRR@10; generated files in the top 5 of all ${ANSWERED.length + FEATURES.length}; translations in the top 5 of the ${FEATURES.length} feature questions)\n`);
}
main().catch((e) => { process.stderr.write(`${(e as Error).stack}\n`); process.exit(1); });
