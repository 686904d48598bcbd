/** The Search tab: query, scope, scan mode, filters, and results grouped by file. */
import type { HitSource, PanelHit, PanelSearchResult } from '../protocol/webview';
import { focusField, setPlaceholder, setValue, ui, valueOf } from './components';
import { displayOrder, groupHits, snippetLines } from './highlight';
import { escapeHtml } from './markdown';
import type { PanelState, VsCodeApi } from './state';

const FILE_TYPES = ['ts', 'tsx', 'js', 'py', 'go', 'rs', 'java', 'md', 'json'];

const PLACEHOLDER = {
  semantic: 'Search the workspace (Enter runs)',
  grep_code: 'Text, or /regex/flags (Enter runs)',
  grep_docs: 'Text, or /regex/flags in file docs (Enter runs)',
} as const;

export const searchHtml = () => `
<section class="column" id="view-search">
  ${ui.textField('query', PLACEHOLDER.semantic, { 'aria-label': 'Search' })}
  <div class="row">
    <label>Scope ${ui.dropdown('scope', [
      { value: 'code', label: 'Code' }, { value: 'functions', label: 'Functions' },
      { value: 'files', label: 'Files' }, { value: 'all', label: 'Everything' },
    ])}</label>
    <label>Scan ${ui.dropdown('mode', [
      { value: 'semantic', label: 'Semantic' }, { value: 'grep_code', label: 'Grep code' }, { value: 'grep_docs', label: 'Grep docs' },
    ])}</label>
  </div>
  <div id="grep-hint" class="hint" hidden>Plain text matches as typed; <code>/pattern/flags</code> is a regular expression in ripgrep's syntax (flags <code>i</code>, <code>m</code>, <code>s</code>), e.g. <code>/set\\w+Cookie/i</code>.</div>
  ${ui.textField('path-filter', 'Path filter, e.g. src/** (Enter adds)', { 'aria-label': 'Path filter' })}
  <div class="chips" id="chips" role="group" aria-label="Filters"></div>
  <div id="search-status" class="status" role="status"></div>
  <div id="results" class="results" tabindex="0" role="listbox" aria-label="Results"></div>
</section>`;

export class SearchView {
  private requestId = 0;
  /** The hits as drawn (grouped by file): row i is hits[i]. */
  private hits: PanelHit[] = [];

  constructor(private readonly api: VsCodeApi, private readonly state: PanelState, private readonly save: () => void) {}

  mount(): void {
    const s = this.state.search;
    setValue('query', s.query);
    requestAnimationFrame(() => { setValue('scope', s.scope); setValue('mode', s.mode); this.modeChanged(); });
    this.renderChips();
    if (s.result) this.render(s.result, s.selected);
    const $ = (id: string) => document.getElementById(id)!;
    $('query').addEventListener('keydown', (e) => this.queryKey(e as KeyboardEvent));
    $('query').addEventListener('input', () => { s.query = valueOf('query'); this.save(); });
    $('results').addEventListener('keydown', (e) => this.resultsKey(e as KeyboardEvent));
    $('results').addEventListener('click', (e) => {
      const row = (e.target as HTMLElement).closest('.hit') as HTMLElement | null;
      if (!row) return;
      this.select(Number(row.dataset.index));
      this.open(s.selected);
    });
    $('chips').addEventListener('click', (e) => this.toggleChip(e.target as HTMLElement));
    $('chips').addEventListener('keydown', (e) => {
      const key = (e as KeyboardEvent).key;
      if (key === 'Enter' || key === ' ') this.toggleChip(e.target as HTMLElement);
    });
    $('path-filter').addEventListener('keydown', (e) => this.pathKey(e as KeyboardEvent));
    $('scope').addEventListener('change', () => { s.scope = valueOf('scope') as never; this.save(); this.rerun(); });
    $('mode').addEventListener('change', () => { s.mode = valueOf('mode') as never; this.modeChanged(); this.save(); this.rerun(); });
  }

  focus(): void {
    focusField('query');
  }

  /** Fills the query (from a command or History) and runs it. */
  run(query: string, mode?: PanelState['search']['mode']): void {
    this.state.search.query = query;
    setValue('query', query);
    if (mode) { this.state.search.mode = mode; setValue('mode', mode); this.modeChanged(); }
    this.search();
  }

  search(): void {
    const s = this.state.search;
    s.query = valueOf('query').trim();
    const status = document.getElementById('search-status')!;
    if (s.query.length < 2) {
      status.textContent = 'Type at least 2 characters.';
      return;
    }
    this.requestId++;
    status.innerHTML = `${ui.progress()} Searching…`;
    this.save();
    this.api.postMessage({
      type: 'search', requestId: this.requestId,
      params: {
        query: s.query, scope: s.scope, scan_mode: s.mode,
        filters: { ...(s.types.length ? { file_types: [...s.types] } : {}), ...(s.paths.length ? { file_paths: [...s.paths] } : {}) },
      },
    });
  }

  onResult(requestId: number, result: PanelSearchResult): void {
    if (requestId !== this.requestId) return;
    this.state.search.result = result;
    this.render(result, result.hits.length ? 0 : -1);
    this.save();
  }

  onError(requestId: number, message: string): void {
    if (requestId === this.requestId) document.getElementById('search-status')!.textContent = `Search failed: ${message}`;
  }

  private rerun(): void {
    if (valueOf('query').trim().length >= 2) this.search();
  }

  private modeChanged(): void {
    const mode = this.state.search.mode;
    setPlaceholder('query', PLACEHOLDER[mode] ?? PLACEHOLDER.semantic);
    document.getElementById('grep-hint')!.hidden = mode === 'semantic';
  }

  private render(result: PanelSearchResult, selected: number): void {
    // The rows are grouped by file; `hits` holds them in that drawn order so row i opens hits[i].
    this.hits = displayOrder(result.hits);
    const rank = new Map(result.hits.map((h, i) => [h, i]));
    const wholeWords = this.state.search.mode === 'semantic';
    // With a team server, the status says what each source found ("local 12 · loupe.example.com 30").
    const pending = result.pending ?? [];
    const twoSources = result.sources.length + result.errors.length + pending.length > 1;
    const counts = [...result.sources.map((s) => `${s.source.label} ${s.total}`), ...pending.map((p) => `searching ${p.label}…`)];
    const perSource = twoSources ? ` (${counts.join(' · ')})` : '';
    document.getElementById('search-status')!.textContent =
      `${result.total} results for “${this.state.search.query}” in ${result.tookMs} ms${perSource}${result.warnings.length ? ` — ${result.warnings.join('; ')}` : ''}`;
    const errors = result.errors.map((e) => `<div class="source-error" role="alert" data-source="${e.source.kind}">${
      e.source.kind === 'team' ? `Team server ${escapeHtml(e.source.label)}` : 'Local index'}: ${escapeHtml(e.message)}${
      result.sources.length ? ` — showing the ${escapeHtml(result.sources.map((s) => s.source.label).join(' and '))} results.` : ''}</div>`).join('');
    let index = 0;
    const html = groupHits(this.hits).map((repo) => `
      <div class="repo"><div class="repo-name">${twoSources && repo.source ? sourceBadge(repo.source as HitSource) : ''}${escapeHtml(repo.repo)}</div>
      ${repo.files.map((file) => `
        <div class="file"><div class="file-path" title="${escapeHtml(file.path ?? '')}">${escapeHtml(file.path ?? '(repository)')}</div>
        ${file.hits.map((hit) => renderHit(hit, index++, rank.get(hit) ?? -1, wholeWords)).join('')}
        </div>`).join('')}
      </div>`).join('');
    document.getElementById('results')!.innerHTML = errors + (html || '<div class="empty">No results.</div>');
    this.select(Math.min(selected, this.hits.length - 1));
  }

  private select(index: number): void {
    this.state.search.selected = index;
    for (const el of Array.from(document.querySelectorAll('#results .hit'))) {
      const on = Number((el as HTMLElement).dataset.index) === index;
      el.classList.toggle('selected', on);
      el.setAttribute('aria-selected', String(on));
      if (on) el.scrollIntoView({ block: 'nearest' });
    }
    this.save();
  }

  private open(index: number): void {
    const hit = this.hits[index];
    if (hit?.uri) this.api.postMessage({ type: 'open', uri: hit.uri, line: hit.line });
  }

  private queryKey(e: KeyboardEvent): void {
    if (e.key === 'Enter') this.search();
    else if (e.key === 'ArrowDown' && this.hits.length) {
      e.preventDefault();
      document.getElementById('results')!.focus();
      this.select(Math.max(0, this.state.search.selected));
    }
  }

  private resultsKey(e: KeyboardEvent): void {
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      this.select(Math.min(this.hits.length - 1, Math.max(0, this.state.search.selected + (e.key === 'ArrowDown' ? 1 : -1))));
    } else if (e.key === 'Enter') this.open(this.state.search.selected);
  }

  private pathKey(e: KeyboardEvent): void {
    if (e.key !== 'Enter') return;
    const p = valueOf('path-filter').trim();
    if (p && !this.state.search.paths.includes(p)) this.state.search.paths.push(p);
    setValue('path-filter', '');
    this.renderChips();
    this.save();
    this.rerun();
  }

  private renderChips(): void {
    const { types, paths } = this.state.search;
    const chips = FILE_TYPES.map((t) => ui.tag(`.${t}`, {
      class: `chip${types.includes(t) ? ' on' : ''}`, 'data-type': t, tabindex: 0, role: 'checkbox', 'aria-checked': String(types.includes(t)),
    }));
    const pathChips = paths.map((p, i) => ui.tag(`${escapeHtml(p)} ×`, { class: 'chip on', 'data-path': i, tabindex: 0, title: 'remove' }));
    document.getElementById('chips')!.innerHTML = [...chips, ...pathChips].join('');
  }

  private toggleChip(el: HTMLElement): void {
    const chip = el.closest('.chip') as HTMLElement | null;
    if (!chip) return;
    const { types, paths } = this.state.search;
    if (chip.dataset.type) {
      const at = types.indexOf(chip.dataset.type);
      if (at >= 0) types.splice(at, 1); else types.push(chip.dataset.type);
    } else if (chip.dataset.path) paths.splice(Number(chip.dataset.path), 1);
    this.renderChips();
    this.save();
    this.rerun();
  }
}

/** `data-index`: the row's place as drawn (what keys and clicks use); `data-rank`: its place in the API's answer. */
function renderHit(hit: PanelHit, index: number, rank: number, wholeWords: boolean): string {
  const title = hit.name ? `<div class="hit-title">${escapeHtml(hit.name)}${hit.signature ? ` <span class="sig">${escapeHtml(hit.signature)}</span>` : ''}</div>` : '';
  const lines = hit.snippet ? snippetLines(hit.snippet.start_line, hit.snippet.text, hit.snippet.highlights, wholeWords)
    .map((l) => `<div class="line${l.hasMatch ? ' match' : ''}"><span class="ln">${l.number}</span><span class="code">${l.html || ' '}</span></div>`).join('') : '';
  // A team hit's tooltip says where it is from; a local one stays `path:line` (the default source).
  const from = hit.source.kind === 'team' ? ` (team server ${hit.source.label})` : '';
  return `<div class="hit" role="option" data-index="${index}" data-rank="${rank}" data-source="${hit.source.kind}" title="${escapeHtml(hit.file_path ?? '')}:${hit.line}${escapeHtml(from)}">${title}${lines ? `<div class="snippet">${lines}</div>` : ''}</div>`;
}

/** Where a repository's hits are from: "local", or the team server's host. */
function sourceBadge(source: HitSource): string {
  const title = source.kind === 'team' ? `from the team server ${source.label} (loupe.server.url)` : 'from this window\'s own index';
  return `<span class="source source-${source.kind}" title="${escapeHtml(title)}">${escapeHtml(source.label)}</span>`;
}
