import path from 'node:path';

/**
 * Files a web framework starts from by their place alone: its pages, layouts, API routes, middleware and hooks,
 * which nothing imports (the framework's router finds them). Each framework is recognised by its config file in
 * the app's folder (`next.config.*`, `nuxt.config.*`, `svelte.config.*`, `astro.config.*`, `remix.config.*` /
 * `react-router.config.*`); the patterns are relative to it. SvelteKit's route files name themselves (`+page.svelte`),
 * wherever its config is (sv 0.17 writes it into vite.config.ts).
 */
interface Framework {
  name: string;
  config: RegExp;
  /** Paths below the app's folder that the framework routes to. */
  routes: RegExp;
}

const SCRIPT = String.raw`\.(?:[cm]?[jt]sx?)$`;

const SVELTEKIT_ROUTE = /(?:^|\/)src\/routes\/(?:.*\/)?\+(?:page|layout|server|error)(?:\.server)?\.(?:svelte|[jt]s)$/;

const FRAMEWORKS: Framework[] = [
  {
    name: 'Next.js',
    config: /^next\.config\.(?:js|mjs|cjs|ts|mts)$/,
    // The app router's special files, the pages router's pages and API routes, middleware and instrumentation.
    routes: new RegExp(String.raw`^(?:src/)?(?:app/(?:.*/)?(?:page|layout|route|template|default|error|global-error|loading|not-found)${SCRIPT}|pages/.+${SCRIPT}|(?:middleware|instrumentation)${SCRIPT})`),
  },
  {
    name: 'Nuxt',
    config: /^nuxt\.config\.(?:js|mjs|ts|mts)$/,
    routes: new RegExp(String.raw`^(?:app/)?(?:pages/.+\.(?:vue|[jt]sx?)$|layouts/[^/]+\.vue$|(?:app|error)\.vue$|(?:plugins|middleware)/[^/]+${SCRIPT}|app\.config\.ts$)|^server/(?:api|routes|middleware|plugins)/.+${SCRIPT}`),
  },
  {
    name: 'SvelteKit',
    config: /^svelte\.config\.(?:js|mjs|ts)$/,
    routes: new RegExp(String.raw`^src/(?:routes/(?:.*/)?\+(?:page|layout|server|error)(?:\.server)?\.(?:svelte|[jt]s)$|hooks(?:\.(?:server|client))?\.[jt]s$)`),
  },
  {
    name: 'Astro',
    config: /^astro\.config\.(?:js|mjs|cjs|ts|mts)$/,
    routes: /^src\/(?:pages\/.+\.(?:astro|md|mdx|[jt]s)$|middleware\.[jt]s$)/,
  },
  {
    name: 'Remix',
    config: /^(?:remix|react-router)\.config\.(?:js|mjs|ts)$/,
    routes: new RegExp(String.raw`^app/(?:routes/.+|root|entry\.(?:client|server))${SCRIPT}`),
  },
];

/**
 * The files among `paths` that a framework routes to, each with the framework's name (`Next.js route`): for every
 * folder holding a framework's config file, the files below it that match the framework's places.
 */
export function frameworkRoutes(paths: readonly string[]): Map<string, string> {
  const apps: { dir: string; framework: Framework }[] = [];
  for (const p of paths) {
    const base = path.posix.basename(p);
    const framework = FRAMEWORKS.find((f) => f.config.test(base));
    if (framework) apps.push({ dir: path.posix.dirname(p) === '.' ? '' : path.posix.dirname(p), framework });
  }
  const found = new Map<string, string>();
  for (const p of paths) {
    // SvelteKit's `+page.svelte`, `+layout.ts`, `+server.ts` name themselves (its config may be inside vite.config.*).
    if (SVELTEKIT_ROUTE.test(p) && !p.includes('node_modules/')) { found.set(p, 'SvelteKit route'); continue; }
    for (const { dir, framework } of apps) {
      if (dir && !p.startsWith(`${dir}/`)) continue;
      const rel = dir ? p.slice(dir.length + 1) : p;
      if (rel.includes('node_modules/')) continue;
      if (framework.routes.test(rel)) { found.set(p, `${framework.name} route`); break; }
    }
  }
  return found;
}
