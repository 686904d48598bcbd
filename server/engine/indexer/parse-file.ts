import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import type { ParsedFile } from '../types';
import { isScriptLanguage, languageOf } from './languages';
import { analyzeScript, type ScriptAnalysis } from './parse-typescript';
import { analyzeComponent, COMPONENT_FILE, componentParts } from './parse-component';
import { inNuxtApp, nuxtReferences } from './nuxt-auto-imports';
import { RepoFiles } from './tree-sitter/repo-files';
import { analyzeWithTreeSitter, resetTreeSitterResolution, treeSitterLanguages } from './parse-tree-sitter';
import { ModuleResolver } from './resolver';
import { chunkFile } from './chunker';
import { utf16Text } from '../util/text';
import { hasGeneratorBanner } from '../util/generated-banner';

export interface ParseOptions {
  maxFileBytes: number;
}

export interface ParseJob {
  relPath: string;
  size: number;
  mtimeMs: number;
  /** Hash already in the index: when the content still has it, parsing is skipped. */
  knownHash?: string;
  /** Unsaved editor content, used instead of the file on disk. */
  content?: string;
}

export type ParseResult =
  | { kind: 'parsed'; file: ParsedFile }
  | { kind: 'unchanged'; relPath: string; size: number; mtimeMs: number }
  | { kind: 'skipped'; relPath: string; reason: SkipReason; size: number; mtimeMs: number };

/** Why a file is left out of the index; `unreadable` ones are tried again at the next run. */
export type SkipReason = 'generated' | 'oversized' | 'binary' | 'unreadable';

const GENERATED_NAMES = /(\.min\.(js|css)|\.bundle\.js|-lock\.json|\.lock|\.map)$/i;
/** Lock files that name each installed package and what it provides: the dependency facts read them (repo-facts.ts). */
const READ_LOCKS = /(^|\/)(composer|Gemfile)\.lock$/;

/** Reads, classifies, hashes and parses one file. Pure apart from reading the file: safe in a worker. */
export class FileParser {
  private readonly resolver: ModuleResolver;
  /** The repository's files as framework conventions see them (Nuxt's auto-imports). */
  private readonly files: RepoFiles;

  constructor(private readonly root: string, private readonly options: ParseOptions) {
    this.resolver = new ModuleResolver(root);
    this.files = new RepoFiles(root);
  }

  /** After files are added or removed, cached file-system answers used by resolution are stale. */
  resetResolution(): void {
    this.resolver.reset();
    this.files.reset();
    resetTreeSitterResolution(this.root);
  }

  /** Whether one of the folders is in a Nuxt app, whose files use auto-imported names (nuxt-auto-imports.ts); asked of the disk now, each folder once. */
  inNuxtApp(relDirs: Iterable<string>): boolean {
    const files = new RepoFiles(this.root);
    for (const dir of relDirs) if (inNuxtApp(files, dir)) return true;
    return false;
  }

  get moduleResolver(): ModuleResolver {
    return this.resolver;
  }

  async parse(job: ParseJob): Promise<ParseResult> {
    const { relPath } = job;
    const skip = (reason: SkipReason): ParseResult => ({ kind: 'skipped', relPath, reason, size: job.size, mtimeMs: job.mtimeMs });
    if (GENERATED_NAMES.test(relPath) && !READ_LOCKS.test(relPath)) return skip('generated');
    if (job.size > this.options.maxFileBytes) return skip('oversized');
    let buffer: Buffer;
    try {
      buffer = job.content !== undefined ? Buffer.from(job.content, 'utf8') : fs.readFileSync(path.join(this.root, relPath));
    } catch {
      return skip('unreadable');
    }
    // UTF-16 with a byte-order mark is text (ripgrep transcodes it too); other NULs early on mean binary.
    const utf16 = utf16Text(buffer);
    if (utf16 === null && buffer.subarray(0, 8000).includes(0)) return skip('binary');
    const hash = createHash('sha1').update(buffer).digest('hex');
    if (job.knownHash === hash) return { kind: 'unchanged', relPath, size: buffer.length, mtimeMs: job.mtimeMs };
    const text = utf16 ?? buffer.toString('utf8');
    // Minified bundles are left out; a generated source file imports and is imported like any other, so it
    // stays in the index (and the import graph), flagged.
    if (isMinified(text)) return skip('generated');

    const language = languageOf(path.basename(relPath), text);
    const lines = text.split('\n');
    let analysis: ScriptAnalysis = { symbols: [], imports: [], description: null };
    try {
      if (isScriptLanguage(language)) {
        analysis = analyzeScript(relPath, text, this.resolver);
        analysis.imports.push(...nuxtReferences(this.files, relPath, () => ({ code: text, template: '' }), analysis.imports));
      } else if (COMPONENT_FILE.test(relPath)) {
        analysis = analyzeComponent(relPath, text, this.resolver);
        const parts = () => { const { script, template } = componentParts(text); return { code: script, template }; };
        analysis.imports.push(...nuxtReferences(this.files, relPath, parts, analysis.imports));
      } else if (language && treeSitterLanguages.has(language)) analysis = await analyzeWithTreeSitter(language, relPath, text, this.root);
    } catch {
      // A parser failure still indexes the file as text: partial results beat none.
    }
    return {
      kind: 'parsed',
      file: {
        path: relPath,
        language,
        size: buffer.length,
        lines: text.endsWith('\n') ? lines.length - 1 : lines.length,
        hash,
        mtimeMs: job.mtimeMs,
        description: analysis.description,
        // A lock file is a tool's output: indexed for the dependency facts, ranked as generated by search.
        generated: READ_LOCKS.test(relPath) || hasGeneratorBanner(text),
        unit: analysis.unit ?? null,
        holdsTests: analysis.holdsTests ?? false,
        symbols: analysis.symbols,
        imports: analysis.imports,
        chunks: chunkFile(lines, analysis.symbols),
      },
    };
  }
}

/** Minified: very long lines on average. */
function isMinified(text: string): boolean {
  const sample = text.slice(0, 20000);
  const newlines = sample.split('\n').length;
  return sample.length > 5000 && sample.length / newlines > 400;
}
