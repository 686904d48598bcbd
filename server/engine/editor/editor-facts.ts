import type { Analysis } from '../analysis/analysis';
import { isTestPath } from '../analysis/entry-points';
import { usersOfFile, usersWithin } from '../analysis/symbol-users';
import type { RepoRecord } from '../types';
import { librariesOf } from '../analysis/testing-libraries';

export interface ImpactDependent { path: string; depth: number; isEntryPoint: boolean; isTest: boolean }

export interface FileImpact {
  generation: number;
  dependents: ImpactDependent[];
  /** As the radius summary counts them (the API's `/v2/radius` answers the same numbers). */
  entryPoints: number;
  tests: number;
}

export interface SymbolUse { path: string; line: number }

export interface FileLensFacts {
  generation: number;
  impact: FileImpact;
  /** Exported top-level symbols with the number of files that use them. */
  symbols: { name: string; line: number; users: number }[];
  /**
   * False while the symbols' users are still being parsed (the answer then has no symbols): they
   * follow in the background and `onLensFactsCompleted` says when to ask again.
   */
  complete: boolean;
}

const CACHE_LIMIT = 2_000;
const DEPENDENTS_LIMIT = 10_000;
/**
 * How long a lens answer may spend parsing importers for "used in N files" once the parser is
 * loaded; the rest is parsed in the background. Before the first parse (TypeScript loads then: seconds
 * on a busy machine) a lens answers with what the index holds and parses nothing.
 */
const LENS_PARSE_BUDGET_MS = 50;

/**
 * What the editor shows on every file (blast radius counts for CodeLens, who uses an export), taken
 * from the analysis engine's radius and symbol users (the same code as the HTTP API) and cached per
 * (file, graph generation), so that while nothing changes a lens costs a map lookup.
 */
export class EditorFacts {
  private readonly lensCache = new Map<string, FileLensFacts>();

  private readonly analysis;

  constructor(private readonly service: Analysis) {
    this.analysis = service.ctx;
  }

  async impact(repo: RepoRecord, relPath: string): Promise<FileImpact | null> {
    const graph = await this.analysis.graph(repo.id);
    if (!graph.indexOfPath.has(relPath)) return null;
    const result = await this.service.radius(repo, {
      files: [relPath], dependencies: [], include: ['dependents', 'entry_points'], limit: DEPENDENTS_LIMIT,
    });
    const target = result.targets[0];
    const entries = new Set((target.entry_points ?? []).filter((e) => e.kind !== 'test').map((e) => e.file_path));
    return {
      generation: graph.generation,
      dependents: (target.dependents ?? []).map((d) => ({
        path: d.file_path, depth: d.depth, isEntryPoint: entries.has(d.file_path), isTest: isTestPath(d.file_path, librariesOf(graph)),
      })),
      entryPoints: result.summary.entry_points,
      tests: result.summary.tests,
    };
  }

  /** Where other files use `name` from this file (through barrels too), one location per use. */
  async symbolUses(repo: RepoRecord, relPath: string, name: string): Promise<SymbolUse[]> {
    const graph = await this.analysis.graph(repo.id);
    const index = graph.indexOfPath.get(relPath);
    if (index === undefined) return [];
    const seen = new Set<string>();
    const out: SymbolUse[] = [];
    for (const { user, usage } of await usersOfFile(this.analysis, repo.id, graph, index)) {
      if (usage.kind === 'reexport' || usage.importedName !== name) continue;
      const key = `${user}:${usage.line}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ path: graph.path(user), line: usage.line });
    }
    return out.sort((a, b) => a.path.localeCompare(b.path) || a.line - b.line);
  }

  /**
   * The lenses of a file. The file's radius comes from the index at once; "used in N files" needs
   * the importers parsed, which is done within a small budget (nothing before the parser has loaded,
   * as on the first request after a start): the rest is parsed in the background, the answer says
   * `complete: false` and listeners of `onCompleted` hear when the full facts are there.
   */
  async lensFacts(repo: RepoRecord, relPath: string): Promise<FileLensFacts | null> {
    const graph = await this.analysis.graph(repo.id);
    const key = `${repo.id}\0${relPath}`;
    const cached = this.lensCache.get(key);
    if (cached && cached.generation === graph.generation) return cached;
    const index = graph.indexOfPath.get(relPath);
    const impact = await this.impact(repo, relPath);
    if (index === undefined || !impact) return null;
    // Completed in the background at this generation already (its parses may have left the cache): parse what is missing now.
    const deadline = this.completed.get(key) === graph.generation ? Infinity
      : this.parserLoaded ? performance.now() + LENS_PARSE_BUDGET_MS : 0;
    const { uses, pending } = await usersWithin(this.analysis, repo.id, graph, index, deadline);
    if (pending.length) {
      this.completeLater(repo, relPath, key);
      return { generation: graph.generation, impact, symbols: [], complete: false };
    }
    const users = new Map<string, Set<number>>();
    for (const { user, usage } of uses) {
      if (usage.kind === 'reexport') continue;
      let set = users.get(usage.importedName);
      if (!set) users.set(usage.importedName, set = new Set());
      set.add(user);
    }
    const symbols = ((await this.analysis.symbols(repo.id, graph)).get(index) ?? [])
      .filter((s) => s.exported && s.parent === null)
      .map((s) => ({ name: s.name, line: s.startLine, users: users.get(s.name)?.size ?? 0 }));
    const facts = { generation: graph.generation, impact, symbols, complete: true };
    if (this.lensCache.size >= CACHE_LIMIT) this.lensCache.delete(this.lensCache.keys().next().value!);
    this.lensCache.set(key, facts);
    return facts;
  }

  /** Called with the repository whose lens facts were completed in the background (ask for lenses again). */
  onCompleted(listener: (repoId: string) => void): void {
    this.completedListeners.push(listener);
  }

  private parserLoaded = false;
  private readonly completing = new Set<string>();
  /** The generation at which each file's facts were last completed in the background. */
  private readonly completed = new Map<string, number>();
  private readonly completedListeners: ((repoId: string) => void)[] = [];

  /** Parses the importers of one file off the request path (once per file at a time), then tells the listeners. */
  private completeLater(repo: RepoRecord, relPath: string, key: string): void {
    if (this.completing.has(key)) return;
    this.completing.add(key);
    setTimeout(async () => {
      try {
        const graph = await this.analysis.graph(repo.id);
        const index = graph.indexOfPath.get(relPath);
        if (index !== undefined) await usersOfFile(this.analysis, repo.id, graph, index);
        this.parserLoaded = true;
        if (this.completed.size >= CACHE_LIMIT) this.completed.delete(this.completed.keys().next().value!);
        this.completed.set(key, graph.generation);
      } catch {
        // The file or the index went away meanwhile: the next request starts over.
      } finally {
        this.completing.delete(key);
      }
      for (const listener of this.completedListeners) listener(repo.id);
    }, 0);
  }
}
