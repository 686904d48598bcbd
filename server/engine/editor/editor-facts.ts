import type { Analysis } from '../analysis/analysis';
import { isTestPath } from '../analysis/entry-points';
import { symbolUsers, usersOfFile } from '../analysis/symbol-users';
import type { RepoRecord } from '../types';

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
}

const CACHE_LIMIT = 2_000;
const DEPENDENTS_LIMIT = 10_000;

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
    const graph = this.analysis.graph(repo.id);
    if (!graph.indexOfPath.has(relPath)) return null;
    const result = await this.service.radius(repo, {
      files: [relPath], dependencies: [], include: ['dependents', 'entry_points'], limit: DEPENDENTS_LIMIT,
    });
    const target = result.targets[0];
    const entries = new Set((target.entry_points ?? []).filter((e) => e.kind !== 'test').map((e) => e.file_path));
    return {
      generation: graph.generation,
      dependents: (target.dependents ?? []).map((d) => ({
        path: d.file_path, depth: d.depth, isEntryPoint: entries.has(d.file_path), isTest: isTestPath(d.file_path),
      })),
      entryPoints: result.summary.entry_points,
      tests: result.summary.tests,
    };
  }

  /** Where other files use `name` from this file (through barrels too), one location per use. */
  symbolUses(repo: RepoRecord, relPath: string, name: string): SymbolUse[] {
    const graph = this.analysis.graph(repo.id);
    const index = graph.indexOfPath.get(relPath);
    if (index === undefined) return [];
    const seen = new Set<string>();
    const out: SymbolUse[] = [];
    for (const { user, usage } of usersOfFile(this.analysis, repo.id, graph, index)) {
      if (usage.kind === 'reexport' || usage.importedName !== name) continue;
      const key = `${user}:${usage.line}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ path: graph.path(user), line: usage.line });
    }
    return out.sort((a, b) => a.path.localeCompare(b.path) || a.line - b.line);
  }

  async lensFacts(repo: RepoRecord, relPath: string): Promise<FileLensFacts | null> {
    const graph = this.analysis.graph(repo.id);
    const key = `${repo.id}\0${relPath}`;
    const cached = this.lensCache.get(key);
    if (cached && cached.generation === graph.generation) return cached;
    const index = graph.indexOfPath.get(relPath);
    const impact = await this.impact(repo, relPath);
    if (index === undefined || !impact) return null;
    const symbols = (this.analysis.symbols(repo.id, graph).get(index) ?? [])
      .filter((s) => s.exported && s.parent === null)
      .map((s) => ({ name: s.name, line: s.startLine, users: symbolUsers(this.analysis, repo.id, graph, index, s.name).size }));
    const facts = { generation: graph.generation, impact, symbols };
    if (this.lensCache.size >= CACHE_LIMIT) this.lensCache.delete(this.lensCache.keys().next().value!);
    this.lensCache.set(key, facts);
    return facts;
  }
}
