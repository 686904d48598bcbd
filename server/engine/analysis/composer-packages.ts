/** A package Composer installed, with the namespaces its `autoload` (PSR-4, PSR-0) maps: `Symfony\Component\Yaml`. */
export interface InstalledPackage { name: string; namespaces: string[] }

const INSTALLED = /(^|\/)vendor\/composer\/installed\.json$/;
const LOCK = /(^|\/)composer\.lock$/;

/**
 * The packages vendor/composer/installed.json files or composer.lock files list (Composer 2 writes `{ "packages": [...] }`, Composer 1 the
 * array), in a repository that holds its vendor/ folder: the project's requirements and theirs.
 */
export function installedComposerPackages(paths: string[], readText: (p: string) => string | null): InstalledPackage[] {
  const out: InstalledPackage[] = [];
  const all = new Set(paths);
  // composer.lock (beside its composer.json) lists the same packages with the same fields, `packages` and
  // `packages-dev`: most projects commit it, few their vendor/ folder.
  const lockOf = (p: string) => LOCK.test(p) && all.has(p.replace(/composer\.lock$/, 'composer.json'));
  for (const p of paths.filter((f) => INSTALLED.test(f) || lockOf(f))) {
    let json: unknown;
    try { json = JSON.parse(readText(p) ?? ''); } catch { continue; }
    const lists = Array.isArray(json) ? [json] : ['packages', 'packages-dev'].map((k) => (json as Record<string, unknown> | null)?.[k]);
    for (const entry of lists.flatMap((l) => (Array.isArray(l) ? l as Record<string, unknown>[] : []))) {
      if (typeof entry?.name !== 'string') continue;
      const autoload = (entry.autoload ?? {}) as Record<string, Record<string, unknown> | undefined>;
      const namespaces = [...Object.keys(autoload['psr-4'] ?? {}), ...Object.keys(autoload['psr-0'] ?? {})]
        .map((k) => k.replace(/\\+$/, '')).filter(Boolean);
      out.push({ name: entry.name, namespaces });
    }
  }
  return out;
}

const squash = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, '');

/** Packages whose `vendor/project` name a namespace's first segments spell, case and `-` aside. */
function bySpelling(names: string[]): (parts: string[]) => string | undefined {
  const packages = names.filter((d) => d.includes('/')).map((d) => ({ name: d, vendor: squash(d.split('/')[0]), project: squash(d.split('/')[1]) }));
  return (parts) => packages.find((p) => parts[0] === p.vendor
    && (parts[1] === p.project || (parts.length >= 3 && parts[2] === p.project) || (parts.length === 1 && p.project === p.vendor)))?.name;
}

/**
 * The Composer package a PHP namespace belongs to: the installed one (installed.json) whose autoload namespace holds
 * it, longest first (`Symfony\Contracts\EventDispatcher` is symfony/event-dispatcher-contracts', which no spelling
 * says); else the declared one its first segments spell, case and `-` aside (`League\Config\Exception` is
 * league/config's, `Psr\EventDispatcher` psr/event-dispatcher's, `Symfony\Component\Yaml` symfony/yaml's, `Embed`
 * embed/embed's), or an installed one so (`Nette\Schema\Elements` is nette/schema's, whose autoload is a classmap);
 * else the namespace's first two segments, a package's usual root (`Nette\Schema`).
 */
export function composerPackages(declared: string[], installed: InstalledPackage[] = []): (namespace: string) => string {
  const declaredOf = bySpelling(declared);
  const installedOf = bySpelling(installed.map((p) => p.name));
  const prefixes = installed.flatMap((p) => p.namespaces.map((ns) => ({ ns, name: p.name }))).sort((a, b) => b.ns.length - a.ns.length);
  return (namespace) => {
    const segments = namespace.split('\\').filter(Boolean);
    const parts = segments.map(squash);
    const clean = segments.join('\\');
    return prefixes.find((p) => clean === p.ns || clean.startsWith(`${p.ns}\\`))?.name
      ?? declaredOf(parts)
      ?? installedOf(parts)
      ?? segments.slice(0, 2).join('\\');
  };
}
