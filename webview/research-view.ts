/** The Research tab: the conversation scrolls above; the question, model and buttons stay pinned below. */
import type { Citation, ConversationResult, ModelInfo, ResearchChunk } from '../protocol/lsp';
import { focusField, setDisabled, setOptions, setValue, ui, valueOf } from './components';
import { escapeHtml, renderMarkdown } from './markdown';
import type { PanelState, Turn, VsCodeApi } from './state';

export const researchHtml = () => `
<section class="research" id="view-research">
  <div id="thread" class="thread"></div>
  <div class="composer">
    ${ui.textArea('question', 'Ask about the code (Ctrl+Enter asks)', 3, { 'aria-label': 'Question' })}
    <div class="row">
      ${ui.dropdown('model', [], { 'aria-label': 'Model', title: 'Model' })}
      ${ui.button('ask', 'Ask')}
      ${ui.button('stop', 'Stop', { secondary: true, disabled: true })}
      ${ui.button('new-thread', 'New', { secondary: true, title: 'Start a new conversation' })}
    </div>
  </div>
</section>`;

/** Sources, once each (one file cited for several ranges is listed once, at its first line). */
export function uniqueSources(citations: Citation[]): Citation[] {
  const byPath = new Map<string, Citation>();
  for (const c of citations) {
    const seen = byPath.get(c.path);
    if (!seen || c.startLine < seen.startLine) byPath.set(c.path, c);
  }
  return [...byPath.values()];
}

/** True when the answer lists its own sources (the built-in model ends with a "Sources" section). */
export function answerListsSources(answer: string): boolean {
  return /^#{1,6}\s*Sources\b/im.test(answer);
}

export class ResearchView {
  private streaming: Turn | null = null;

  constructor(private readonly api: VsCodeApi, private readonly state: PanelState, private readonly save: () => void) {}

  mount(): void {
    const $ = (id: string) => document.getElementById(id)!;
    setValue('question', this.state.research.draft);
    $('ask').addEventListener('click', () => this.ask());
    $('stop').addEventListener('click', () => { if (this.streaming) this.api.postMessage({ type: 'cancelResearch', streamId: this.streaming.streamId }); });
    $('new-thread').addEventListener('click', () => this.newThread());
    $('question').addEventListener('keydown', (e) => {
      const k = e as KeyboardEvent;
      if (k.key === 'Enter' && (k.ctrlKey || k.metaKey)) { e.preventDefault(); this.ask(); }
    });
    $('question').addEventListener('input', () => { this.state.research.draft = valueOf('question'); this.save(); });
    // The placeholder ("Loading models…") has no value: it never replaces the saved choice.
    $('model').addEventListener('change', () => { if (valueOf('model')) { this.state.research.model = valueOf('model'); this.save(); } });
    this.showModels();
    this.render();
  }

  focus(): void {
    focusField('question');
  }

  ask(question = valueOf('question').trim()): void {
    if (!question || this.streaming) return;
    const r = this.state.research;
    const streamId = `s${Date.now()}${Math.random().toString(36).slice(2, 8)}`;
    const turn: Turn = { question, answer: '', citations: [], status: 'Starting…', error: null, done: false, streamId };
    r.turns.push(turn);
    this.streaming = turn;
    r.draft = '';
    setValue('question', '');
    this.setStreaming(true);
    this.render();
    this.save();
    const model = valueOf('model') || r.model;
    this.api.postMessage({ type: 'research', params: { streamId, question, modelId: model || undefined, conversationId: r.threadId ?? undefined, scope: 'code' } });
  }

  onChunk(chunk: ResearchChunk): void {
    const turn = this.state.research.turns.find((t) => t.streamId === chunk.streamId);
    if (!turn) return;
    switch (chunk.type) {
      case 'text': turn.answer += chunk.text; turn.status = ''; break;
      case 'status': turn.status = chunk.message; break;
      case 'citation': turn.citations.push(chunk.citation); break;
      case 'done': turn.done = true; turn.status = ''; this.state.research.threadId = chunk.conversationId ?? this.state.research.threadId; break;
      case 'error': turn.error = chunk.message; turn.done = true; turn.status = ''; break;
    }
    if (turn.done && this.streaming === turn) { this.streaming = null; this.setStreaming(false); }
    this.render();
    if (turn.done || chunk.type !== 'text') this.save();
  }

  /** A past conversation from History, with its answers; a follow-up continues it. */
  showConversation(conversation: ConversationResult): void {
    if (this.streaming) return;
    const r = this.state.research;
    r.threadId = conversation.threadId;
    r.turns = conversation.turns.map((t, i) => ({
      question: t.question, answer: t.answer, citations: t.citations, status: '', error: t.error, done: true, streamId: `h${i}`,
    }));
    this.render();
    this.save();
  }

  /** The server's list of models (sent when the server is up, and again when it restarts or VS Code's models change). */
  setModels(models: ModelInfo[]): void {
    this.state.research.models = models;
    this.save();
    this.showModels();
  }

  /**
   * The last known list, until the server sends a new one: after a window reload the choice is there at
   * once, not after the language server has started. Before any list, the dropdown says it is loading
   * (asking then uses the saved choice or the default model).
   */
  private showModels(): void {
    const models = this.state.research.models;
    if (!models.length) {
      setOptions('model', [{ value: '', label: 'Loading models…' }]);
      return;
    }
    const labels = { 'built-in': 'built-in', configured: 'configured', vscode: 'VS Code' } as const;
    const ordered = (['built-in', 'configured', 'vscode'] as const).flatMap((source) => models.filter((m) => m.source === source));
    setOptions('model', ordered.map((m) => ({ value: m.id, label: `${m.label} · ${labels[m.source]}` })), this.state.research.model);
  }

  private newThread(): void {
    if (this.streaming) return;
    this.state.research.threadId = null;
    this.state.research.turns = [];
    this.render();
    this.save();
    this.focus();
  }

  private setStreaming(on: boolean): void {
    setDisabled('ask', on);
    setDisabled('stop', !on);
  }

  private render(): void {
    const thread = document.getElementById('thread')!;
    thread.innerHTML = this.state.research.turns.map((t) => renderTurn(t)).join(ui.divider())
      || '<div class="empty">Ask a question about the workspace. Answers cite the files they come from; a follow-up continues the conversation.</div>';
    thread.scrollTop = thread.scrollHeight;
  }
}

function renderTurn(t: Turn): string {
  const sources = uniqueSources(t.citations);
  const files = sources.map((c) => ({ path: c.path, uri: c.uri }));
  // Sources are shown once: the answer's own list (linked) when it has one, else the citations.
  const cites = sources.length && !answerListsSources(t.answer)
    ? `<div class="citations"><span>Sources:</span> ${sources.map((c) =>
      `<a href="#" class="file-link citation" data-uri="${escapeHtml(c.uri)}" data-line="${c.startLine}">${escapeHtml(c.path)}:${c.startLine}</a>`).join(' ')}</div>`
    : '';
  return `<div class="turn">
    <div class="question">${escapeHtml(t.question)}</div>
    <div class="answer${t.done ? ' done' : ' streaming'}">${renderMarkdown(t.answer, files)}</div>
    ${t.status ? `<div class="status">${t.done ? '' : `${ui.progress()} `}${escapeHtml(t.status)}</div>` : ''}
    ${t.error ? `<div class="error">${escapeHtml(t.error)}</div>` : ''}
    ${cites}
  </div>`;
}
