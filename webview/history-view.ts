/** The History tab: past searches (each query once) and research conversations (each once), newest first. */
import type { HistoryEntry } from '../protocol/lsp';
import type { HitSource } from '../protocol/webview';
import { ui } from './components';
import { escapeHtml } from './markdown';

export const historyHtml = () => `
<section class="column" id="view-history">
  <div class="row toolbar"><span class="hint">Click a search to run it again, a conversation to reopen its answers.</span>${ui.button('clear-history', 'Clear', { secondary: true, title: 'Empty this list (the API keeps its own history)' })}</div>
  <div id="history-team" class="hint" hidden></div>
  <div id="history" class="history"></div>
</section>`;

export interface HistoryRow { kind: 'search' | 'research'; query: string; at: string; threadId: string | null; turns: number }

/**
 * One row per search query and per research conversation (its first question, with the number of
 * turns), in the order of their latest use.
 */
export function historyRows(entries: HistoryEntry[]): HistoryRow[] {
  const rows = new Map<string, HistoryRow>();
  const newestFirst = [...entries].sort((a, b) => b.at.localeCompare(a.at));
  for (const e of newestFirst) {
    const key = e.kind === 'research' && e.conversationId ? `thread:${e.conversationId}` : `${e.kind}:${e.query.trim()}`;
    const row = rows.get(key);
    if (!row) rows.set(key, { kind: e.kind, query: e.query.trim(), at: e.at, threadId: e.conversationId, turns: 1 });
    else {
      row.turns++;
      if (e.kind === 'research') row.query = e.query.trim(); // older entries come later: ends on the first question
    }
  }
  return [...rows.values()];
}

export class HistoryView {
  private rows: HistoryRow[] = [];

  constructor(private readonly handlers: { search(query: string): void; reopen(threadId: string, question: string): void; clear(): void }) {}

  mount(): void {
    const list = document.getElementById('history')!;
    const pick = (target: EventTarget | null) => {
      const el = (target as HTMLElement).closest('.history-entry') as HTMLElement | null;
      const row = el ? this.rows[Number(el.dataset.index)] : undefined;
      if (!row) return;
      if (row.kind === 'research' && row.threadId) this.handlers.reopen(row.threadId, row.query);
      else this.handlers.search(row.query);
    };
    list.addEventListener('click', (e) => pick(e.target));
    list.addEventListener('keydown', (e) => { if ((e as KeyboardEvent).key === 'Enter') pick(e.target); });
    document.getElementById('clear-history')!.addEventListener('click', () => this.handlers.clear());
    this.render([]);
  }

  /**
   * With a team server, says what this list is: the window's own history. The team server keeps the searches and
   * research asked of it in its own history (GET /v2/history there), which this list does not show.
   */
  setTeam(source: HitSource | null): void {
    const note = document.getElementById('history-team');
    if (!note) return;
    note.hidden = !source;
    note.textContent = source ? `This window's history. Questions and searches asked of the team server ${source.label} are kept in its own history.` : '';
  }

  render(entries: HistoryEntry[]): void {
    this.rows = historyRows(entries);
    document.getElementById('history')!.innerHTML = this.rows.map((r, i) => `
      <div class="history-entry" data-index="${i}" tabindex="0" role="button">
        <span class="kind">${r.kind === 'research' ? 'research' : 'search'}</span>
        <span class="q">${escapeHtml(r.query)}</span>
        ${r.kind === 'research' && r.turns > 1 ? `<span class="turns" title="questions in this conversation">${r.turns} questions</span>` : ''}
        ${r.threadId ? `<span class="thread-id" title="conversation">#${escapeHtml(r.threadId.slice(0, 8))}</span>` : ''}
        <span class="at">${escapeHtml(new Date(r.at).toLocaleString())}</span>
      </div>`).join('') || '<div class="empty">No searches yet.</div>';
  }
}
