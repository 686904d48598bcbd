/**
 * Cold index time and peak RSS per language on real projects, each in a fresh process
 * (bench/index-once.ts), beside rxjs as the baseline of the same run (the machine is shared: read the
 * ratios). Sources are Debian and npm packages, pinned, unpacked once under bench/.corpora/langs.
 *
 *   node --import tsx bench/languages.ts [name …]        names: go python rust java csharp cpp ruby php (default: all)
 *
 * Prints one JSON line per corpus and a Markdown table for docs/benchmarks.md.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { debianPackage, npmPackage } from '../test/helpers/real-code';
import { corpus } from './corpora';
import { debianCorpus } from './debian';

const ROOT = path.join(__dirname, '.corpora', 'langs');

/** Copies the parts of unpacked packages that make one project into bench/.corpora/langs/<name>. */
function assemble(name: string, parts: [from: string, to: string][], extra: Record<string, string> = {}): string {
  const dir = path.join(ROOT, name);
  if (fs.existsSync(path.join(dir, '.complete'))) return dir;
  fs.rmSync(dir, { recursive: true, force: true });
  for (const [from, to] of parts) fs.cpSync(from, path.join(dir, to), { recursive: true });
  for (const [file, text] of Object.entries(extra)) fs.writeFileSync(path.join(dir, file), text);
  fs.writeFileSync(path.join(dir, '.complete'), '');
  return dir;
}

const CORPORA: Record<string, () => string> = {
  // golang.org/x/tools 0.5.0 and sympy 1.11.1 (bench/debian.ts).
  go: () => debianCorpus('x-tools'),
  python: () => debianCorpus('sympy'),
  // tokio and serde crates side by side.
  rust: () => assemble('rust', [
    [path.join(debianPackage('librust-tokio-dev', '1.24.2-1'), 'usr/share/cargo/registry/tokio-1.24.2'), 'tokio'],
    [path.join(debianPackage('librust-serde-dev', '1.0.152-2'), 'usr/share/cargo/registry/serde-1.0.152'), 'serde'],
  ]),
  // Bazel's Java sources (src/main/java).
  java: () => assemble('java', [[path.join(debianPackage('bazel-bootstrap-source', '4.2.3+ds-9'), 'usr/src/bazel-bootstrap/src/main/java'), 'src/main/java']]),
  // react-native-windows' managed projects.
  csharp: () => {
    const rnw = npmPackage('react-native-windows@0.76.9');
    return assemble('csharp', ['Microsoft.ReactNative.Managed', 'Microsoft.ReactNative.Managed.CodeGen'].map((p) => [path.join(rnw, p), p]));
  },
  // libxcrypt and Boost.Asio's headers.
  cpp: () => assemble('cpp', [
    [path.join(debianPackage('libxcrypt-source', '1:4.4.33-2'), 'usr/src/libxcrypt'), 'libxcrypt'],
    [path.join(debianPackage('libboost1.81-dev', '1.81.0-5+deb12u1'), 'usr/include/boost/asio'), 'include/boost/asio'],
  ]),
  // ActiveSupport (Zeitwerk) and Rack.
  ruby: () => assemble('ruby', [
    [path.join(debianPackage('ruby-activesupport', '2:6.1.7.10+dfsg-1~deb12u3'), 'usr/share/rubygems-integration/all/gems'), 'gems'],
    [path.join(debianPackage('ruby-rack', '2.2.22-0+deb12u1'), 'usr/share/rubygems-integration/all/gems/rack-2.2.22'), 'rack'],
  ]),
  // Symfony components with their PSR-4 root.
  php: () => assemble('php', ['console', 'dependency-injection', 'http-foundation', 'http-kernel'].map((c) => {
    const pkg = debianPackage(`php-symfony-${c}`, '5.4.53+dfsg-0+deb12u1');
    const component = fs.readdirSync(path.join(pkg, 'usr/share/php/Symfony/Component'))[0];
    return [path.join(pkg, 'usr/share/php/Symfony/Component', component), `Symfony/Component/${component}`] as [string, string];
  }), { 'composer.json': JSON.stringify({ name: 'symfony/components', autoload: { 'psr-4': { 'Symfony\\': 'Symfony/' } } }) }),
};

function indexOnce(folder: string): { files: number; coldMs: number; peakRssMb: number } {
  const out = execFileSync(process.execPath, ['--import', 'tsx', path.join(__dirname, 'index-once.ts'), folder], { encoding: 'utf8', maxBuffer: 1 << 26 });
  return JSON.parse(out.trim().split('\n').pop()!) as { files: number; coldMs: number; peakRssMb: number };
}

function main() {
  const names = process.argv.slice(2).length ? process.argv.slice(2) : Object.keys(CORPORA);
  const baseline = indexOnce(corpus('rxjs'));
  const perFile = (r: { files: number; coldMs: number }) => r.coldMs / r.files;
  console.log(JSON.stringify({ corpus: 'rxjs (baseline)', ...baseline }));
  const rows = [`| rxjs (baseline) | ${baseline.files} | ${(baseline.coldMs / 1000).toFixed(1)} s | ${perFile(baseline).toFixed(1)} | 1.00 | ${baseline.peakRssMb.toFixed(0)} MB |`];
  for (const name of names) {
    const folder = CORPORA[name]();
    const r = indexOnce(folder);
    console.log(JSON.stringify({ corpus: name, folder, ...r }));
    rows.push(`| ${name} | ${r.files} | ${(r.coldMs / 1000).toFixed(1)} s | ${perFile(r).toFixed(1)} | ${(perFile(r) / perFile(baseline)).toFixed(2)} | ${r.peakRssMb.toFixed(0)} MB |`);
  }
  console.log(['| corpus | files | cold index | ms per file | per file vs rxjs | peak RSS |', '|---|---:|---:|---:|---:|---:|', ...rows].join('\n'));
}

main();
