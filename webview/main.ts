/**
 * The search and research panel. It renders what the host sends and asks the host for everything
 * else; the host relays to the language server. No results are computed here.
 */
import {
  provideVSCodeDesignSystem, vsCodeButton, vsCodeDropdown, vsCodeOption, vsCodePanels, vsCodePanelTab, vsCodePanelView,
  vsCodeTextField, vsCodeTextArea, vsCodeTag, vsCodeProgressRing, vsCodeDivider,
} from '@vscode/webview-ui-toolkit';
import type { Citation, HistoryEntry, ModelInfo, RadiusResult, ResearchChunk, SearchHit, SearchResult } from '../protocol/lsp';
import type { HostMessage, PanelTab, WebviewMessage } from '../protocol/webview';
import { escapeHtml, renderMarkdown } from './markdown';
import { displayOrder, groupHits, snippetLines } from './highlight';

provideVSCodeDesignSystem().register(
  vsCodeButton(), vsCodeDropdown(), vsCodeOption(), vsCodePanels(), vsCodePanelTab(), vsCodePanelView(),
  vsCodeTextField(), vsCodeTextArea(), vsCodeTag(), vsCodeProgressRing(), vsCodeDivider(),
);

declare function acquireVsCodeApi(): { postMessage(message: WebviewMessage): void; getState(): unknown; setState(state: unknown): void };
const vscode = acquireVsCodeApi();
const post = (m: WebviewMessage) => vscode.postMessage(m);

const FILE_TYPES = ['ts', 'tsx', 'js', 'py', 'go', 'rs', 'java', 'md', 'json'];

const app = document.getElementById('app')!;
app.innerHTML = `
<vscode-panels id="tabs" aria-label="Loupe">
  <vscode-panel-tab id="tab-search">SEARCH</vscode-panel-tab>
  <vscode-panel-tab id="tab-research">RESEARCH</vscode-panel-tab>
  <vscode-panel-tab id="tab-history">HISTORY</vscode-panel-tab>
  <vscode-panel-tab id="tab-radius">RADIUS</vscode-panel-tab>
  <vscode-panel-view id="view-search">
    <section class="column">
      <vscode-text-field id="query" placeholder="Search the workspace (Enter runs)" size="60"></vscode-text-field>
      <div class="row">
        <label>Scope <vscode-dropdown id="scope">
          <vscode-option value="code">Code</vscode-option>
          <vscode-option value="functions">Functions</vscode-option>
          <vscode-option value="files">Files</vscode-option>
          <vscode-option value="all">Everything</vscode-option>
        </vscode-dropdown></label>
        <label>Scan <vscode-dropdown id="mode">
          <vscode-option value="semantic">Semantic (hybrid)</vscode-option>
          <vscode-option value="grep_code">Grep code</vscode-option>
          <vscode-option value="grep_docs">Grep docs</vscode-option>
        </vscode-dropdown></label>
        <vscode-text-field id="path-filter" placeholder="path filter, e.g. src/** (Enter adds)"></vscode-text-field>
      </div>
      <div class="chips" id="chips" role="group" aria-label="Filters"></div>
      <div id="search-status" class="status" role="status"></div>
      <div id="results" class="results" tabindex="0" role="listbox" aria-label="Results"></div>
    </section>
  </vscode-panel-view>
  <vscode-panel-view id="view-research">
    <section class="column">
      <div id="thread" class="thread"></div>
      <vscode-text-area id="question" placeholder="Ask about the code (Ctrl+Enter asks)" rows="3" resize="vertical"></vscode-text-area>
      <div class="row">
        <label>Model <vscode-dropdown id="model"></vscode-dropdown></label>
        <vscode-button id="ask">Ask</vscode-button>
        <vscode-button id="stop" appearance="secondary" disabled>Stop</vscode-button>
        <vscode-button id="new-thread" appearance="secondary">New conversation</vscode-button>
      </div>
    </section>
  </vscode-panel-view>
  <vscode-panel-view id="view-history"><section class="column"><div id="history" class="history"></div></section></vscode-panel-view>
  <vscode-panel-view id="view-radius"><section class="column"><div id="radius" class="radius">Click a file's dependents lens, or run “Loupe: Show Blast Radius Tree”.</div></section></vscode-panel-view>
</vscode-panels>`;

const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;
const value = (id: string) => ($(id) as HTMLElement & { value: string }).value;

// ---- tabs ----
function selectTab(tab: PanelTab): void {
  ($('tabs') as HTMLElement & { activeid: string }).activeid = `tab-${tab}`;
  if (tab === 'search') focusInput('query');
  if (tab === 'research') focusInput('question');
}
function focusInput(id: string): void {
  requestAnimationFrame(() => ($(id).shadowRoot?.querySelector('input, textarea') as HTMLElement | null)?.focus());
}

// ---- search ----
const activeTypes = new Set<string>();
const paths: string[] = [];
let requestId = 0;
let hits: SearchHit[] = [];
let selected = -1;

function renderChips(): void {
  const chips = FILE_TYPES.map((t) => `<vscode-tag class="chip${activeTypes.has(t) ? ' on' : ''}" data-type="${t}" tabindex="0" role="checkbox" aria-checked="${activeTypes.has(t)}">.${t}</vscode-tag>`);
  const pathChips = paths.map((p, i) => `<vscode-tag class="chip on" data-path="${i}" tabindex="0" title="remove">${escapeHtml(p)} ×</vscode-tag>`);
  $('chips').innerHTML = [...chips, ...pathChips].join('');
}

function runSearch(): void {
  const query = value('query').trim();
  if (query.length < 2) {
    $('search-status').textContent = 'Type at least 2 characters.';
    return;
  }
  requestId++;
  $('search-status').innerHTML = '<vscode-progress-ring></vscode-progress-ring> Searching…';
  post({
    type: 'search', requestId,
    params: {
      query, scope: value('scope') as never, scan_mode: value('mode') as never,
      filters: { ...(activeTypes.size ? { file_types: [...activeTypes] } : {}), ...(paths.length ? { file_paths: [...paths] } : {}) },
    },
  });
}

function renderResults(result: SearchResult): void {
  // The rows are grouped by file; `hits` holds them in that drawn order so row i opens hits[i].
  hits = displayOrder(result.hits);
  selected = hits.length ? 0 : -1;
  $('search-status').textContent = `${result.total} results in ${result.tookMs} ms${result.warnings.length ? ` — ${result.warnings.join('; ')}` : ''}`;
  let index = 0;
  const rank = new Map(result.hits.map((h, i) => [h, i]));
  const html = groupHits(hits).map((repo) => `
    <div class="repo"><div class="repo-name">${escapeHtml(repo.repo)}</div>
    ${repo.files.map((file) => `
      <div class="file"><div class="file-path">${escapeHtml(file.path ?? '(repository)')}</div>
      ${file.hits.map((hit) => renderHit(hit, index++, rank.get(hit) ?? -1)).join('')}
      </div>`).join('')}
    </div>`).join('');
  $('results').innerHTML = html || '<div class="empty">No results.</div>';
  highlightSelected();
}

/** `data-index`: the row's place as drawn (what keys and clicks use); `data-rank`: its place in the API's answer. */
function renderHit(hit: SearchHit, index: number, rank: number): string {
  const title = hit.name ? `<div class="hit-title">${escapeHtml(hit.name)}${hit.signature ? ` <span class="sig">${escapeHtml(hit.signature)}</span>` : ''}</div>` : '';
  const lines = hit.snippet ? snippetLines(hit.snippet.start_line, hit.snippet.text, hit.snippet.highlights)
    .map((l) => `<div class="line${l.hasMatch ? ' match' : ''}"><span class="ln">${l.number}</span><code>${l.html || ' '}</code></div>`).join('') : '';
  return `<div class="hit" role="option" data-index="${index}" data-rank="${rank}" title="${escapeHtml(hit.file_path ?? '')}:${hit.line}">${title}<div class="snippet">${lines}</div></div>`;
}

function highlightSelected(): void {
  for (const el of Array.from(document.querySelectorAll('.hit'))) {
    const on = Number((el as HTMLElement).dataset.index) === selected;
    el.classList.toggle('selected', on);
    el.setAttribute('aria-selected', String(on));
    if (on) el.scrollIntoView({ block: 'nearest' });
  }
}

function openHit(index: number): void {
  const hit = hits[index];
  if (hit?.uri) post({ type: 'open', uri: hit.uri, line: hit.line });
}

$('query').addEventListener('keydown', (e) => {
  const key = (e as KeyboardEvent).key;
  if (key === 'Enter') runSearch();
  else if (key === 'ArrowDown' && hits.length) {
    e.preventDefault();
    $('results').focus();
    selected = Math.max(0, selected);
    highlightSelected();
  }
});
$('results').addEventListener('keydown', (e) => {
  const key = (e as KeyboardEvent).key;
  if (key === 'ArrowDown' || key === 'ArrowUp') {
    e.preventDefault();
    selected = Math.min(hits.length - 1, Math.max(0, selected + (key === 'ArrowDown' ? 1 : -1)));
    highlightSelected();
  } else if (key === 'Enter') openHit(selected);
});
$('results').addEventListener('click', (e) => {
  const hit = (e.target as HTMLElement).closest('.hit') as HTMLElement | null;
  if (!hit) return;
  selected = Number(hit.dataset.index);
  highlightSelected();
  openHit(selected);
});
$('chips').addEventListener('click', (e) => toggleChip(e.target as HTMLElement));
$('chips').addEventListener('keydown', (e) => { if ((e as KeyboardEvent).key === 'Enter' || (e as KeyboardEvent).key === ' ') toggleChip(e.target as HTMLElement); });
function toggleChip(el: HTMLElement): void {
  const chip = el.closest('.chip') as HTMLElement | null;
  if (!chip) return;
  if (chip.dataset.type) {
    const t = chip.dataset.type;
    if (activeTypes.has(t)) activeTypes.delete(t); else activeTypes.add(t);
  } else if (chip.dataset.path) paths.splice(Number(chip.dataset.path), 1);
  renderChips();
  if (value('query').trim().length >= 2) runSearch();
}
$('path-filter').addEventListener('keydown', (e) => {
  if ((e as KeyboardEvent).key !== 'Enter') return;
  const field = $('path-filter') as HTMLElement & { value: string };
  const p = field.value.trim();
  if (p && !paths.includes(p)) paths.push(p);
  field.value = '';
  renderChips();
  if (value('query').trim().length >= 2) runSearch();
});

// ---- research ----
interface Turn { question: string; answer: string; citations: Citation[]; status: string; error: string | null; done: boolean; streamId: string }
const turns: Turn[] = [];
let conversationId: string | null = null;
let streaming: Turn | null = null;

function ask(): void {
  const question = value('question').trim();
  if (!question || streaming) return;
  const streamId = `s${Date.now()}${Math.random().toString(36).slice(2, 8)}`;
  const turn: Turn = { question, answer: '', citations: [], status: 'Starting…', error: null, done: false, streamId };
  turns.push(turn);
  streaming = turn;
  ($('question') as HTMLElement & { value: string }).value = '';
  setStreaming(true);
  renderThread();
  const model = value('model');
  post({ type: 'research', params: { streamId, question, modelId: model || undefined, conversationId: conversationId ?? undefined, scope: 'code' } });
}

function setStreaming(on: boolean): void {
  $('ask').toggleAttribute('disabled', on);
  $('stop').toggleAttribute('disabled', !on);
}

function onChunk(chunk: ResearchChunk): void {
  const turn = turns.find((t) => t.streamId === chunk.streamId);
  if (!turn) return;
  switch (chunk.type) {
    case 'text': turn.answer += chunk.text; turn.status = ''; break;
    case 'status': turn.status = chunk.message; break;
    case 'citation': turn.citations.push(chunk.citation); break;
    case 'done': turn.done = true; turn.status = ''; conversationId = chunk.conversationId ?? conversationId; break;
    case 'error': turn.error = chunk.message; turn.done = true; break;
  }
  if (turn.done && streaming === turn) { streaming = null; setStreaming(false); }
  renderThread();
}

function renderThread(): void {
  $('thread').innerHTML = turns.map((t) => {
    const files = t.citations.map((c) => ({ path: c.path, uri: c.uri }));
    const cites = t.citations.length ? `<div class="citations"><span>Sources:</span> ${t.citations.map((c) =>
      `<a href="#" class="file-link citation" data-uri="${escapeHtml(c.uri)}" data-line="${c.startLine}">${escapeHtml(c.path)}:${c.startLine}</a>`).join(' ')}</div>` : '';
    return `<div class="turn">
      <div class="question">${escapeHtml(t.question)}</div>
      <div class="answer${t.done ? ' done' : ' streaming'}">${renderMarkdown(t.answer, files)}</div>
      ${t.status ? `<div class="status">${t.done ? '' : '<vscode-progress-ring></vscode-progress-ring> '}${escapeHtml(t.status)}</div>` : ''}
      ${t.error ? `<div class="error">${escapeHtml(t.error)}</div>` : ''}
      ${cites}
    </div>`;
  }).join('<vscode-divider></vscode-divider>') || '<div class="empty">Ask a question about the workspace. Answers cite the files they come from; follow-up questions continue the conversation.</div>';
  $('thread').scrollTop = $('thread').scrollHeight;
}

$('ask').addEventListener('click', ask);
$('stop').addEventListener('click', () => { if (streaming) post({ type: 'cancelResearch', streamId: streaming.streamId }); });
$('new-thread').addEventListener('click', () => { conversationId = null; turns.length = 0; renderThread(); focusInput('question'); });
$('question').addEventListener('keydown', (e) => {
  const k = e as KeyboardEvent;
  if (k.key === 'Enter' && (k.ctrlKey || k.metaKey)) { e.preventDefault(); ask(); }
});

function renderModels(models: ModelInfo[]): void {
  const groups: [ModelInfo['source'], string][] = [['built-in', 'built-in'], ['configured', 'configured'], ['vscode', 'VS Code']];
  $('model').innerHTML = groups.flatMap(([source, label]) => models.filter((m) => m.source === source)
    .map((m) => `<vscode-option value="${escapeHtml(m.id)}">${escapeHtml(m.label)} · ${label}</vscode-option>`)).join('');
}

// ---- history ----
function renderHistory(entries: HistoryEntry[]): void {
  $('history').innerHTML = entries.map((e, i) => `<div class="history-entry" data-index="${i}" tabindex="0">
      <span class="kind">${e.kind}</span> <span class="q">${escapeHtml(e.query)}</span>${e.conversationId ? ` <span class="thread-id" title="conversation">#${escapeHtml(e.conversationId.slice(0, 8))}</span>` : ''} <span class="at">${escapeHtml(new Date(e.at).toLocaleString())}</span>
    </div>`).join('') || '<div class="empty">No searches yet.</div>';
  historyEntries = entries;
}
let historyEntries: HistoryEntry[] = [];
$('history').addEventListener('click', (e) => {
  const row = (e.target as HTMLElement).closest('.history-entry') as HTMLElement | null;
  const entry = row ? historyEntries[Number(row.dataset.index)] : undefined;
  if (!entry) return;
  if (entry.kind === 'search') {
    ($('query') as HTMLElement & { value: string }).value = entry.query;
    selectTab('search');
    runSearch();
  } else {
    ($('question') as HTMLElement & { value: string }).value = entry.query;
    if (entry.conversationId) conversationId = entry.conversationId;
    selectTab('research');
  }
});

// ---- radius ----
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
function renderRadius(result: RadiusResult): void {
  const byDepth = new Map<number, RadiusResult['dependents']>();
  for (const d of result.dependents) {
    if (!byDepth.has(d.depth)) byDepth.set(d.depth, []);
    byDepth.get(d.depth)!.push(d);
  }
  const groups = [...byDepth].sort((a, b) => a[0] - b[0]).map(([depth, files]) => `
    <details open><summary>Depth ${depth} · ${files.length} ${files.length === 1 ? 'file' : 'files'}</summary><ul>
    ${files.sort((a, b) => a.path.localeCompare(b.path)).map((f) => `<li><a href="#" class="file-link" data-uri="${escapeHtml(f.uri)}" data-line="1">${escapeHtml(f.path)}</a>${f.isEntryPoint ? ' <vscode-tag>entry point</vscode-tag>' : ''}${f.isTest ? ' <vscode-tag>test</vscode-tag>' : ''}</li>`).join('')}
    </ul></details>`).join('');
  $('radius').innerHTML = `<h3>Blast radius of ${escapeHtml(result.path)}</h3>
    <p>${plural(result.dependents.length, 'dependent')} · ${plural(result.entryPoints, 'entry point')} · ${plural(result.tests, 'test')}</p>
    ${result.note ? `<p>${escapeHtml(result.note)}</p>` : groups || '<p>No file depends on it.</p>'}`;
}

// File links anywhere (answers, citations, radius) open the file at the line.
document.addEventListener('click', (e) => {
  const link = (e.target as HTMLElement).closest('.file-link') as HTMLElement | null;
  if (!link) return;
  e.preventDefault();
  post({ type: 'open', uri: link.dataset.uri!, line: Number(link.dataset.line ?? 1) });
});

window.addEventListener('message', (event: MessageEvent<HostMessage>) => {
  const m = event.data;
  switch (m.type) {
    case 'init': selectTab(m.tab); break;
    case 'focus':
      selectTab(m.tab);
      if (m.query) {
        ($(m.tab === 'research' ? 'question' : 'query') as HTMLElement & { value: string }).value = m.query;
        if (m.tab === 'search') runSearch();
      }
      break;
    case 'searchResult': if (m.requestId === requestId) renderResults(m.result); break;
    case 'searchError': if (m.requestId === requestId) $('search-status').textContent = `Search failed: ${m.message}`; break;
    case 'researchChunk': onChunk(m.chunk); break;
    case 'models': renderModels(m.models); break;
    case 'history': renderHistory(m.entries); break;
    case 'radiusTree': renderRadius(m.result); break;
  }
});

renderChips();
renderThread();
post({ type: 'ready' });
