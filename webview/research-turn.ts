/**
 * A research turn as HTML (pure: no toolkit, no DOM, so it is unit-tested as it is, test/client/research-panel.test.ts):
 * the question, and each asked source's answer with its progress, failure and sources.
 */
import type { Citation } from '../protocol/lsp';
import type { HitSource } from '../protocol/webview';
import { escapeHtml, renderMarkdown } from './markdown';
import type { AnswerPart, Turn } from './state';

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

const LOCAL: HitSource = { kind: 'local', label: 'local' };

/**
 * A question and its answer. With the team server asked too, each source's answer is its own labelled part (the
 * badge the search's repository headings carry): its text, progress, failure (one sentence; the other part still
 * shows) and sources; a team source opens read-only from the team server.
 */
export function renderTurn(t: Turn): string {
  const question = `<div class="question">${escapeHtml(t.question)}</div>`;
  if (!t.team) return `<div class="turn">${question}${renderPart(t, null)}</div>`;
  const parts = [...(t.local === false ? [] : [{ part: t as AnswerPart, source: LOCAL }]), { part: t.team as AnswerPart, source: t.team.source }];
  const answered = parts.filter((p) => !p.part.error && p.part.done).map((p) => p.source.label);
  return `<div class="turn">${question}${parts.map(({ part, source }) => `<section class="answer-part" data-source="${source.kind}" aria-label="${
    escapeHtml(source.kind === 'team' ? `Answer from the team server ${source.label}` : 'Answer from the local index')}">
    <div class="answer-source">${sourceBadge(source)}</div>
    ${renderPart(part, source, answered.filter((l) => l !== source.label))}
  </section>`).join('')}</div>`;
}

function renderPart(t: AnswerPart, source: HitSource | null, others: string[] = []): string {
  const sources = uniqueSources(t.citations);
  const files = sources.map((c) => ({ path: c.path, uri: c.uri }));
  const from = source?.kind === 'team' ? ` title="${escapeHtml(`from the team server ${source.label} (read-only)`)}"` : '';
  // Sources are shown once: the answer's own list (linked) when it has one, else the citations.
  const cites = sources.length && !answerListsSources(t.answer)
    ? `<div class="citations"><span>Sources:</span> ${sources.map((c) =>
      `<a href="#" class="file-link citation" data-uri="${escapeHtml(c.uri)}" data-line="${c.startLine}"${from}>${escapeHtml(c.path)}:${c.startLine}</a>`).join(' ')}</div>`
    : '';
  // A source that failed says so in one sentence (as the search does), and names the answer that still shows.
  const error = !t.error ? '' : source?.kind === 'team' && t.error !== 'stopped'
    ? `<div class="error source-error" role="alert">Team server ${escapeHtml(source.label)}: ${escapeHtml(t.error)}${others.length ? ` — showing the ${escapeHtml(others.join(' and '))} answer.` : ''}</div>`
    : `<div class="error">${escapeHtml(t.error)}</div>`;
  return `<div class="answer${t.done ? ' done' : ' streaming'}">${renderMarkdown(t.answer, files)}</div>
    ${t.status ? `<div class="status">${t.done ? '' : `<vscode-progress-ring></vscode-progress-ring> `}${escapeHtml(t.status)}</div>` : ''}
    ${error}
    ${cites}`;
}

function sourceBadge(source: HitSource): string {
  const title = source.kind === 'team' ? `from the team server ${source.label} (loupe.server.url)` : 'from this window\'s own index';
  return `<span class="source source-${source.kind}" title="${escapeHtml(title)}">${escapeHtml(source.label)}</span>`;
}
