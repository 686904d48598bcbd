/**
 * Real source code and toolchains from Debian, pinned: `apt-get download PKG=VERSION` and `dpkg-deb -x`,
 * unpacked once under bench/.corpora/debian (gitignored) and reused. Nothing is installed on the machine.
 * CI reaches Debian's mirrors; a fresh machine without package lists gets `apt-get update` first.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { CORPORA_DIR } from './corpora';

export const DEBIAN_DIR = process.env.LOUPE_DEBIAN_CACHE ?? path.join(CORPORA_DIR, 'debian');

const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };

/**
 * Downloads `name=version` into a folder and returns the version obtained. A pinned version can leave the
 * archive (a stable point release or a security update replaces it, and the mirrors keep only the newest):
 * then, after refreshing the package lists once, the version the archive has now is taken and said so on
 * stderr. Callers compare what they got with what they pinned (`.complete` records it) and loosen only the
 * checks a new upstream release may change; see test/helpers/real-code.ts.
 */
export function aptDownload(name: string, version: string, into: string, refreshLists = true): string {
  const get = (spec: string) => execFileSync('apt-get', ['download', '-q', spec], { cwd: into, stdio: ['ignore', 'ignore', 'pipe'], env });
  const obtained = () => {
    const deb = fs.readdirSync(into).find((f) => f.startsWith(`${name}_`) && f.endsWith('.deb'))!;
    return execFileSync('dpkg-deb', ['-f', path.join(into, deb), 'Version'], { encoding: 'utf8' }).trim();
  };
  try {
    get(`${name}=${version}`);
    return version;
  } catch { /* not in the lists this machine has: refresh them, then try again */ }
  if (refreshLists) {
    try { execFileSync('apt-get', ['update', '-qq'], { stdio: 'ignore', env }); } catch { /* not root, or offline: the lists stay */ }
  }
  try {
    get(`${name}=${version}`);
    return version;
  } catch { /* gone from the archive */ }
  get(name);
  const got = obtained();
  process.stderr.write(`${name}=${version} is no longer in the Debian archive: using ${got}\n`);
  return got;
}

function download(specs: string[], into: string): string[] {
  return specs.map((spec) => {
    const cut = spec.indexOf('=');
    return `${spec.slice(0, cut)}=${aptDownload(spec.slice(0, cut), spec.slice(cut + 1), into)}`;
  });
}

/**
 * The packages `specs` (`name=version`) unpacked together into one folder, named `name` (several packages
 * share a folder when their files refer to each other, as golang-1.19-go's GOROOT links into golang-1.19-src).
 */
export function debianPackages(name: string, specs: string[]): string {
  const dir = path.join(DEBIAN_DIR, name);
  if (fs.existsSync(path.join(dir, '.complete'))) return dir;
  fs.rmSync(dir, { recursive: true, force: true });
  const debs = path.join(DEBIAN_DIR, `.${name}.debs`);
  fs.rmSync(debs, { recursive: true, force: true });
  fs.mkdirSync(debs, { recursive: true });
  try {
    process.stderr.write(`fetching ${specs.join(' ')} from Debian…\n`);
    const obtained = download(specs, debs);
    for (const deb of fs.readdirSync(debs).filter((f) => f.endsWith('.deb'))) execFileSync('dpkg-deb', ['-x', path.join(debs, deb), dir]);
    fs.writeFileSync(path.join(dir, '.complete'), obtained.join('\n'));
  } finally {
    fs.rmSync(debs, { recursive: true, force: true });
  }
  return dir;
}

/** True when the packages unpacked under `name` are the versions `specs` pin (not newer ones the archive had instead). */
export function debianPinned(name: string, specs: string[]): boolean {
  const complete = path.join(DEBIAN_DIR, name, '.complete');
  return !fs.existsSync(complete) || fs.readFileSync(complete, 'utf8').trim() === specs.join('\n');
}

/** One package (`name=version`) unpacked; the folder holds its files as installed (`usr/…`). */
export function debianPackage(spec: string): string {
  return debianPackages(spec.replace(/[=:+~]/g, '_'), [spec]);
}

/** Real projects from Debian, by the language whose import graph they exercise. */
export const DEBIAN_CORPORA = {
  /** gin 1.8.1: go.mod at the root, build-constrained files (`!nomsgpack`, `!go1.18`), a `.pb.go` imported from testdata. */
  gin: { language: 'go', spec: 'golang-github-gin-gonic-gin-dev=1.8.1-1', sub: 'usr/share/gocode/src/github.com/gin-gonic/gin' },
  /** grpc-go 1.33.3 with its examples module put back where upstream keeps it (`examples/go.mod`, `replace google.golang.org/grpc => ../`). */
  grpc: { language: 'go', spec: 'golang-google-grpc-dev=1.33.3-2', sub: 'usr/share/gocode/src/google.golang.org/grpc', nested: { examples: 'usr/share/doc/golang-google-grpc-dev/examples' } },
  /** golang.org/x/tools 0.5.0: 1,072 Go files (the large Go corpus). */
  'x-tools': { language: 'go', spec: 'golang-golang-x-tools-dev=1:0.5.0+ds-1', sub: 'usr/share/gocode/src/golang.org/x/tools' },
  flask: { language: 'python', spec: 'python3-flask=2.2.2-3', sub: 'usr/lib/python3/dist-packages' },
  requests: { language: 'python', spec: 'python3-requests=2.28.1+dfsg-1', sub: 'usr/lib/python3/dist-packages' },
  /** Django 3.2.25: 859 Python files, packages re-exporting their modules' names from __init__.py. */
  django: { language: 'python', spec: 'python3-django=3:3.2.25-0+deb12u7', sub: 'usr/lib/python3/dist-packages' },
  /**
   * docutils 0.19 as Debian ships it: `utils/roman.py` left out (dfsg), so `import docutils.utils.roman as roman`
   * (manpage.py's fallback) imports `docutils` and `docutils.utils`, then fails.
   */
  docutils: { language: 'python', spec: 'python3-docutils=0.19+dfsg-6', sub: 'usr/lib/python3/dist-packages' },
  /** sympy 1.11.1: 1,497 Python files (the large Python corpus). */
  sympy: { language: 'python', spec: 'python3-sympy=1.11.1-1', sub: 'usr/lib/python3/dist-packages' },
  /** Monolog 2.9.1: PSR-4 without a composer.json (Debian strips it), interfaces and traits across folders. */
  monolog: { language: 'php', spec: 'php-monolog=2.9.1-1', sub: 'usr/share/php' },
  /** Doctrine DBAL 3.6.1: 325 PHP files, `use` aliases and platform classes named across namespaces. */
  'doctrine-dbal': { language: 'php', spec: 'php-doctrine-dbal=3.6.1+dfsg-1', sub: 'usr/share/php' },
  /**
   * concurrent-ruby 1.1.6 with its gemspec put back at the gem's root, where upstream keeps it (Debian moves it to
   * specifications/): `s.require_paths = ["lib/concurrent-ruby"]`, so `require 'concurrent/map'` is found there.
   */
  'concurrent-ruby': {
    language: 'ruby', spec: 'ruby-concurrent=1.1.6+dfsg-5', sub: 'usr/share/rubygems-integration/all/gems/concurrent-ruby-1.1.6',
    nested: { 'concurrent-ruby.gemspec': 'usr/share/rubygems-integration/all/specifications/concurrent-ruby-1.1.6.gemspec' },
  },
  /** net-ssh 7.0.1: `require 'net/ssh/…'` from lib/, `require_relative` and autoloads. */
  'net-ssh': { language: 'ruby', spec: 'ruby-net-ssh=1:7.0.1-1', sub: 'usr/share/rubygems-integration/all/gems/net-ssh-7.0.1' },
  /**
   * Bazel's JUnit runner (bazel-bootstrap-source 4.2.3): Bazel's own layout, not Maven's: `java/` and `javatests/`
   * beside each other, a test in the same package as the class it tests and importing classes of other packages there.
   */
  junitrunner: { language: 'java', spec: 'bazel-bootstrap-source=4.2.3+ds-9', sub: 'usr/src/bazel-bootstrap/src/java_tools/junitrunner' },
  /** The AWS SDK's signing classes that Bazel vendors (same package): Maven's layout, a type named with its package (`implements com.amazonaws.log.InternalLogApi`). */
  'aws-sdk-auth-lite': { language: 'java', spec: 'bazel-bootstrap-source=4.2.3+ds-9', sub: 'usr/src/bazel-bootstrap/third_party/aws-sdk-auth-lite' },
  // Held out: corpora no rule was written against, compared once the rules stood (docs/benchmarks.md).
  cobra: { language: 'go', spec: 'golang-github-spf13-cobra-dev=1.6.1-1', sub: 'usr/share/gocode/src/github.com/spf13/cobra' },
  'go-cmp': { language: 'go', spec: 'golang-github-google-go-cmp-dev=0.5.9-1', sub: 'usr/share/gocode/src/github.com/google/go-cmp' },
  testify: { language: 'go', spec: 'golang-github-stretchr-testify-dev=1.8.1-1', sub: 'usr/share/gocode/src/github.com/stretchr/testify' },
  click: { language: 'python', spec: 'python3-click=8.1.3-2', sub: 'usr/lib/python3/dist-packages' },
  jinja2: { language: 'python', spec: 'python3-jinja2=3.1.2-1+deb12u3', sub: 'usr/lib/python3/dist-packages' },
  urllib3: { language: 'python', spec: 'python3-urllib3=1.26.12-1+deb12u4', sub: 'usr/lib/python3/dist-packages' },
  rich: { language: 'python', spec: 'python3-rich=13.3.1-1', sub: 'usr/lib/python3/dist-packages' },
  pygments: { language: 'python', spec: 'python3-pygments=2.14.0+dfsg-1', sub: 'usr/lib/python3/dist-packages' },
  psr7: { language: 'php', spec: 'php-guzzlehttp-psr7=2.4.5-1+deb12u1', sub: 'usr/share/php' },
  'symfony-console': { language: 'php', spec: 'php-symfony-console=5.4.53+dfsg-0+deb12u1', sub: 'usr/share/php' },
  rack: { language: 'ruby', spec: 'ruby-rack=2.2.22-0+deb12u2', sub: 'usr/share/rubygems-integration/all/gems/rack-2.2.22' },
  thor: { language: 'ruby', spec: 'ruby-thor=1.2.1-2', sub: 'usr/share/rubygems-integration/all/gems/thor-1.2.1' },
  'urfave-cli': { language: 'go', spec: 'golang-github-urfave-cli-dev=1.22.9-2', sub: 'usr/share/gocode/src/github.com/urfave/cli' },
  logrus: { language: 'go', spec: 'golang-github-sirupsen-logrus-dev=1.9.0-1', sub: 'usr/share/gocode/src/github.com/sirupsen/logrus' },
  'gorilla-mux': { language: 'go', spec: 'golang-github-gorilla-mux-dev=1.8.0-1', sub: 'usr/share/gocode/src/github.com/gorilla/mux' },
  markdown: { language: 'python', spec: 'python3-markdown=3.4.1-2+deb12u1', sub: 'usr/lib/python3/dist-packages' },
  dateutil: { language: 'python', spec: 'python3-dateutil=2.8.2-2', sub: 'usr/lib/python3/dist-packages' },
  babel: { language: 'python', spec: 'python3-babel=2.10.3-1', sub: 'usr/lib/python3/dist-packages' },
  commonmark: { language: 'php', spec: 'php-league-commonmark=2.3.9-1+deb12u1', sub: 'usr/share/php' },
  'fast-route': { language: 'php', spec: 'php-nikic-fast-route=1.3.0-4', sub: 'usr/share/php' },
  i18n: { language: 'ruby', spec: 'ruby-i18n=1.10.0-2', sub: 'usr/share/rubygems-integration/all/gems/i18n-1.10.0' },
  addressable: { language: 'ruby', spec: 'ruby-addressable=2.8.1-1', sub: 'usr/share/rubygems-integration/all/gems/addressable-2.8.1' },
  mustermann: { language: 'ruby', spec: 'ruby-mustermann=3.0.0-2', sub: 'usr/share/rubygems-integration/all/gems/mustermann-3.0.0' },
} as const satisfies Record<string, { language: string; spec: string; sub: string; nested?: Record<string, string> }>;

export type DebianCorpus = keyof typeof DEBIAN_CORPORA;

/** True when a corpus is the version pinned above (the archive may have replaced it: see aptDownload). */
export function debianCorpusPinned(name: DebianCorpus): boolean {
  const spec = DEBIAN_CORPORA[name].spec;
  return debianPinned(spec.replace(/[=:+~]/g, '_'), [spec]);
}

/** The folder to index for a Debian corpus (assembled once when it has a nested module to put back). */
export function debianCorpus(name: DebianCorpus): string {
  const c = DEBIAN_CORPORA[name] as { spec: string; sub: string; nested?: Record<string, string> };
  const unpacked = debianPackage(c.spec);
  if (!c.nested) return path.join(unpacked, c.sub);
  const dir = path.join(DEBIAN_DIR, `${name}-assembled`);
  if (fs.existsSync(path.join(dir, '.complete'))) return path.join(dir, 'src');
  fs.rmSync(dir, { recursive: true, force: true });
  fs.cpSync(path.join(unpacked, c.sub), path.join(dir, 'src'), { recursive: true });
  for (const [at, from] of Object.entries(c.nested)) fs.cpSync(path.join(unpacked, from), path.join(dir, 'src', at), { recursive: true });
  fs.writeFileSync(path.join(dir, '.complete'), '');
  return path.join(dir, 'src');
}
