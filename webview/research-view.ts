/** The Research tab: the conversation scrolls above; the question, model and buttons stay pinned below. */
import type { ConversationResult, ModelInfo, ResearchChunk } from '../protocol/lsp';
import type { HitSource, ResearchWhere } from '../protocol/webview';
import { focusField, setDisabled, setOptions, setValue, ui, valueOf } from './components';
import { renderTurn } from './research-turn';
import type { AnswerPart, PanelState, Turn, VsCodeApi } from './state';

export const researchHtml = () => `
<section class="research" id="view-research">
  <div id="thread" class="thread"></div>
  <div class="composer">
    ${ui.textArea('question', 'Ask about the code (Ctrl+Enter asks)', 3, { 'aria-label': 'Question' })}
    <div class="row">
      ${ui.dropdown('research-where', [], { 'aria-label': 'Ask where', title: 'Which index answers: this window\'s, the team server\'s, or both', hidden: true })}
      ${ui.dropdown('model', [], { 'aria-label': 'Model', title: 'Model' })}
      ${ui.button('ask', 'Ask')}
      ${ui.button('stop', 'Stop', { secondary: true, disabled: true })}
      ${ui.button('new-thread', 'New', { secondary: true, title: 'Start a new conversation' })}
    </div>
  </div>
</section>`;

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
    $('research-where').addEventListener('change', () => {
      const where = valueOf('research-where') as ResearchWhere;
      if (where) { this.state.research.where = where; this.save(); }
    });
    this.showWhere();
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
    // With a team server, where the user chose (both by default); each source asked is one part of the turn.
    const where: ResearchWhere = r.team ? (r.where ?? 'both') : 'local';
    const empty = (): AnswerPart => ({ answer: '', citations: [], status: 'Starting…', error: null, done: false });
    const turn: Turn = { question, streamId, ...empty() };
    if (where === 'team') Object.assign(turn, { local: false, done: true, status: '' });
    if (where !== 'local' && r.team) turn.team = { ...empty(), source: r.team };
    r.turns.push(turn);
    this.streaming = turn;
    r.draft = '';
    setValue('question', '');
    this.setStreaming(true);
    this.render();
    this.save();
    const model = valueOf('model') || r.model;
    this.api.postMessage({
      type: 'research',
      params: {
        streamId, question, modelId: model || undefined, conversationId: r.threadId ?? undefined, scope: 'code',
        ...(where === 'local' ? {} : { where, teamConversationId: r.teamThreadId ?? undefined }),
      },
    });
  }

  /** A piece of an answer: the local index's (no source) or the team server's (`source.kind` is `team`). */
  onChunk(chunk: ResearchChunk, source?: HitSource): void {
    const turn = this.state.research.turns.find((t) => t.streamId === chunk.streamId);
    if (!turn) return;
    const team = source?.kind === 'team';
    const part: AnswerPart | undefined = team ? turn.team : turn;
    if (!part) return;
    switch (chunk.type) {
      case 'text': part.answer += chunk.text; part.status = ''; break;
      case 'status': part.status = chunk.message; break;
      case 'citation': part.citations.push(chunk.citation); break;
      case 'done':
        part.done = true; part.status = '';
        if (team) this.state.research.teamThreadId = chunk.conversationId ?? this.state.research.teamThreadId ?? null;
        else this.state.research.threadId = chunk.conversationId ?? this.state.research.threadId;
        break;
      case 'error': part.error = chunk.message; part.done = true; part.status = ''; break;
    }
    const finished = turn.done && (!turn.team || turn.team.done);
    if (finished && this.streaming === turn) { this.streaming = null; this.setStreaming(false); }
    this.render();
    if (part.done || chunk.type !== 'text') this.save();
  }

  /**
   * The team server research can ask, or null: the "ask where" choice shows only with one (both sources by
   * default; the local index alone otherwise, as before).
   */
  setTeam(source: HitSource | null): void {
    const r = this.state.research;
    if (r.team?.label !== source?.label) r.teamThreadId = null; // another server: its conversation is not this one's
    r.team = source;
    this.save();
    this.showWhere();
  }

  private showWhere(): void {
    const el = document.getElementById('research-where');
    const team = this.state.research.team;
    if (!el) return;
    el.hidden = !team;
    // The model list is this window's: with a team server, its answer comes from its own default model.
    document.getElementById('model')?.setAttribute('title', team ? `Model of the local answer (${team.label} answers with its default model)` : 'Model');
    if (!team) return;
    setOptions('research-where', [
      { value: 'both', label: `local + ${team.label}` },
      { value: 'local', label: 'local only' },
      { value: 'team', label: `${team.label} only` },
    ], this.state.research.where ?? 'both');
  }

  /** A past conversation from History, with its answers; a follow-up continues it. */
  showConversation(conversation: ConversationResult): void {
    if (this.streaming) return;
    const r = this.state.research;
    r.threadId = conversation.threadId;
    r.teamThreadId = null;
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
    this.state.research.teamThreadId = null;
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
