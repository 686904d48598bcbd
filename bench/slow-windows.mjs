// Which work held the server's main thread during the slow calls of a bench run (live-index, edit-live with
// --slow-log) against its CPU profile (NODE_OPTIONS="--cpu-prof --cpu-prof-dir=D --cpu-prof-interval 1000"):
//   node bench/slow-windows.mjs <main-thread .cpuprofile> <slow-log> <baseline|candidate> [threshold ms]
// Each sample's time inside a slow call's window counts as: off its core (no sample for > 3 ms), (idle), GC, or
// the innermost frames of ours (dist/*.js or server/**).
import fs from 'node:fs';
const [profFile, slowFile, side, thresholdArg = '20'] = process.argv.slice(2);
const threshold = Number(thresholdArg);
const p = JSON.parse(fs.readFileSync(profFile, 'utf8'));
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const our = /(dist\/|server\/)/;
function chain(id, depth = 5) {
  const leaf = byId.get(id).callFrame.functionName;
  if (leaf === '(idle)' || leaf === '(garbage collector)' || leaf === '(program)') return leaf;
  const out = [];
  let cur = id;
  while (cur !== undefined && out.length < 40) { const n = byId.get(cur); if (our.test(n.callFrame.url) && n.callFrame.functionName) out.push(n.callFrame.functionName); cur = parent.get(cur); }
  return out.slice(0, depth).join(' < ') || `${leaf} (native/vendor)`;
}
let t = p.startTime;
const times = p.timeDeltas.map((d) => (t += d));
const slow = fs.readFileSync(slowFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l)).filter((s) => s.side === side && s.ms > threshold);
const inProfile = slow.filter((s) => s.startUs >= p.startTime && s.endUs <= p.endTime);
const total = new Map();
let all = 0;

for (const s of inProfile) {
  for (let i = 0; i < times.length; i++) {
    if (times[i] <= s.startUs || times[i] - p.timeDeltas[i] >= s.endUs) continue;
    // the part of this sample's interval inside the window
    const a = Math.max(times[i] - p.timeDeltas[i], s.startUs);
    const b = Math.min(times[i], s.endUs);
    const d = (b - a) / 1000;
    if (p.timeDeltas[i] > 3000) { total.set('(off core: no sample)', (total.get('(off core: no sample)') ?? 0) + d); all += d; continue; }
    const c = chain(p.samples[i]);
    total.set(c, (total.get(c) ?? 0) + d);
    all += d;
  }
}
console.log(`${side}: ${slow.length} calls > ${threshold} ms (${inProfile.length} inside the profile), max ${Math.max(...slow.map((s) => s.ms)).toFixed(0)} ms; ${all.toFixed(0)} ms of windows`);
for (const [k, v] of [...total].sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log(`${(100 * v / all).toFixed(1)}%  ${v.toFixed(0)} ms  ${k}`);
