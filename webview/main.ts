/**
 * The search and research view (in the sidebar, movable to the secondary sidebar). It renders what
 * the host sends and asks the host for everything else; the host relays to the language server. No
 * results are computed here. Its state survives hiding, moving and reloading (`setState`).
 */
import type { HostMessage, PanelTab } from '../protocol/webview';
import { searchHtml, SearchView } from './search-view';
import { researchHtml, ResearchView } from './research-view';
import { historyHtml, HistoryView } from './history-view';
import { restoreState, type VsCodeApi } from './state';

declare function acquireVsCodeApi(): VsCodeApi;
const api = acquireVsCodeApi();
const state = restoreState(api.getState());
let saveQueued = false;
/** Saved at most once a frame: a streaming answer changes the state many times a second. */
const save = () => {
  if (saveQueued) return;
  saveQueued = true;
  requestAnimationFrame(() => { saveQueued = false; api.setState(state); });
};

const TABS: { id: PanelTab; label: string }[] = [{ id: 'search', label: 'Search' }, { id: 'research', label: 'Research' }, { id: 'history', label: 'History' }];
document.getElementById('app')!.innerHTML = `
<nav class="tabs" role="tablist" aria-label="Loupe">
  ${TABS.map((t) => `<button id="tab-${t.id}" class="tab" role="tab" data-tab="${t.id}">${t.label}</button>`).join('')}
</nav>
<main class="views">${searchHtml()}${researchHtml()}${historyHtml()}</main>`;

const search = new SearchView(api, state, save);
const research = new ResearchView(api, state, save);
const history = new HistoryView({
  search: (query) => { selectTab('search'); search.run(query); },
  reopen: (threadId) => { selectTab('research'); api.postMessage({ type: 'openConversation', threadId }); },
  clear: () => api.postMessage({ type: 'clearHistory' }),
});

function selectTab(tab: PanelTab, focus = true): void {
  state.tab = tab;
  for (const t of TABS) {
    const on = t.id === tab;
    document.getElementById(`tab-${t.id}`)!.setAttribute('aria-selected', String(on));
    document.getElementById(`view-${t.id}`)!.hidden = !on;
  }
  document.body.dataset.tab = tab;
  if (focus && tab === 'search') search.focus();
  if (focus && tab === 'research') research.focus();
  if (tab === 'history') api.postMessage({ type: 'loadHistory' });
  save();
}

document.querySelector('.tabs')!.addEventListener('click', (e) => {
  const tab = (e.target as HTMLElement).closest('.tab') as HTMLElement | null;
  if (tab) selectTab(tab.dataset.tab as PanelTab);
});

// File links anywhere (answers, sources) open the file at the line.
document.addEventListener('click', (e) => {
  const link = (e.target as HTMLElement).closest('.file-link') as HTMLElement | null;
  if (!link) return;
  e.preventDefault();
  api.postMessage({ type: 'open', uri: link.dataset.uri!, line: Number(link.dataset.line ?? 1) });
});

window.addEventListener('message', (event: MessageEvent<HostMessage>) => {
  const m = event.data;
  switch (m.type) {
    case 'focus':
      selectTab(m.tab);
      if (m.query && m.tab === 'search') search.run(m.query, m.mode);
      if (m.query && m.tab === 'research') research.ask(m.query);
      break;
    case 'searchResult': search.onResult(m.requestId, m.result); break;
    case 'searchError': search.onError(m.requestId, m.message); break;
    case 'researchChunk': research.onChunk(m.chunk, m.source); break;
    case 'teamServer': research.setTeam(m.source); history.setTeam(m.source); break;
    case 'models': research.setModels(m.models); break;
    case 'history': history.render(m.entries); break;
    case 'conversation': research.showConversation(m.conversation); break;
  }
});

search.mount();
research.mount();
history.mount();
selectTab(state.tab, false);
api.postMessage({ type: 'ready' });
