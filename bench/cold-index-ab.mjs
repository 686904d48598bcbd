// Alternating cold indexes of several builds' CLIs (each `<checkout>/dist/cli.js --no-watch`, built first): wall to "indexed",
// the server's and its parse processes' CPU, tree peak RSS, settled RSS 6 s later. Usage:
//   node bench/cold-index-ab.mjs <folder> <rounds> name=<checkout>[,ENV:VALUE…] …
import { spawn } from 'node:child_process'; import fs from 'node:fs'; import os from 'node:os'; import path from 'node:path';
const [folder, rounds, ...configs] = process.argv.slice(2);
const cpu = (pid) => { try { const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' '); return (Number(f[11]) + Number(f[12])) / 100; } catch { return 0; } };
const rss = (pid) => { try { return Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024; } catch { return 0; } };
const kids = (pid) => { try { return fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number); } catch { return []; } };
const results = {};
for (let r = 0; r < Number(rounds); r++) for (const c of configs) {
  const [name, rest] = c.split('=', 2); const [checkout, ...envs] = rest.split(',');
  const env = { ...process.env, LOUPE_API_KEY: '5e4d3c2b-1a0f-4e9d-8c7b-6a5f4e3d2c1b' };
  for (const e of envs) { const [k, v] = e.split(':'); env[k] = v.replace(/\+/g, ' '); }
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ab-'));
  const t0 = performance.now();
  const child = spawn(process.execPath, [path.join(checkout, 'dist/cli.js'), folder, '--port', '0', '--data-dir', dataDir, '--no-watch'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = ''; let peak = 0; const kidCpu = new Map();
  const timer = setInterval(() => { const ks = kids(child.pid); for (const k of ks) kidCpu.set(k, cpu(k)); peak = Math.max(peak, rss(child.pid) + ks.map(rss).reduce((a, b) => a + b, 0)); }, 100);
  await new Promise((resolve, reject) => {
    child.stderr.on('data', (d) => { err += d; if (/^indexed /m.test(err)) resolve(); });
    child.on('exit', (code) => reject(new Error(`${name} exited (${code}) before indexing:\n${err}`)));
  });
  const wall = (performance.now() - t0) / 1000; const serverCpu = cpu(child.pid); clearInterval(timer);
  await new Promise((res) => setTimeout(res, 6000));
  const settled = rss(child.pid);
  child.kill('SIGTERM'); await new Promise((res) => child.on('exit', res));
  fs.rmSync(dataDir, { recursive: true, force: true });
  const kc = [...kidCpu.values()].reduce((a, b) => a + b, 0);
  (results[name] ??= []).push({ wall, serverCpu, kidCpu: kc, peak, settled });
  console.error(`${name}: wall ${wall.toFixed(2)} s, server CPU ${serverCpu.toFixed(2)} s, kids CPU ${kc.toFixed(2)} s, tree peak ${peak.toFixed(0)} MB, settled ${settled.toFixed(0)} MB, load ${os.loadavg()[0].toFixed(2)}`);
}
const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const [name, rs] of Object.entries(results)) console.log(`| ${name} | ${rs.map((x) => x.wall.toFixed(2)).join(', ')} | ${med(rs.map((x) => x.wall)).toFixed(2)} | ${med(rs.map((x) => x.serverCpu)).toFixed(2)} | ${med(rs.map((x) => x.kidCpu)).toFixed(2)} | ${med(rs.map((x) => x.peak)).toFixed(0)} | ${med(rs.map((x) => x.settled)).toFixed(0)} |`);
