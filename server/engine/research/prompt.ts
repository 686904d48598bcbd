/**
 * The prompt generative models get: instructions, the grounding rendered as text within the
 * model's context window, the conversation so far, and the question. The budget is counted in
 * estimated tokens, so a long thread drops its oldest turns before the code is cut.
 */
import type { GroundingContext } from './grounding';
import { estimateTokens, type ChatMessage } from './model-provider';

const INSTRUCTIONS = `You are Loupe's research assistant. Answer the developer's question about their code using the code context below, which Loupe retrieved from its index of their repositories.
- Cite every claim about the code as path:line (for example src/app/area.ts:5).
- Say which functions call which when it matters, using the call and import edges given.
- If the context does not contain the answer, say so plainly and suggest what to search for; do not invent files or functions.`;

export function renderContext(context: GroundingContext, budgetTokens: number): string {
  const parts: string[] = [];
  let used = 0;
  const push = (text: string) => {
    const cost = estimateTokens(text);
    if (used + cost > budgetTokens) return false;
    parts.push(text);
    used += cost;
    return true;
  };
  for (const f of context.files) {
    const head = [`## ${f.path}${f.repoName ? ` (${f.repoName})` : ''}, ${f.lines} lines${f.description ? ` — ${f.description}` : ''}`];
    for (const s of f.symbols) head.push(`- ${s.kind} ${s.signature ?? s.name} at ${f.path}:${s.startLine}-${s.endLine}${s.doc ? ` — ${s.doc}` : ''}`);
    if (!push(head.join('\n'))) break;
    if (f.excerpt) push(`${f.path}:${f.excerpt.startLine}-${f.excerpt.endLine}\n\`\`\`${f.language ?? ''}\n${f.excerpt.text}\n\`\`\``);
  }
  if (context.edges.length) {
    const lines = context.edges.map((e) => (e.kind === 'calls'
      ? `- ${e.fromSymbol} (${e.fromPath}:${e.fromLine}) calls ${e.toSymbol} (${e.toPath}${e.toLine ? `:${e.toLine}` : ''})`
      : `- ${e.fromPath}:${e.fromLine} imports ${e.toPath}`));
    push(`## Edges\n${lines.join('\n')}`);
  }
  return parts.length ? parts.join('\n\n') : '(no indexed code matched the question)';
}

export function buildPrompt(context: GroundingContext, history: ChatMessage[], opts: { contextWindow: number; maxOutput: number }): ChatMessage[] {
  const question: ChatMessage = { role: 'user', content: context.question };
  let budget = opts.contextWindow - opts.maxOutput - estimateTokens(INSTRUCTIONS) - estimateTokens(question.content) - 64;
  // Up to a third of the budget for earlier turns, newest kept first.
  const turns: ChatMessage[] = [];
  let turnBudget = Math.floor(budget / 3);
  for (let i = history.length - 1; i >= 0; i--) {
    const cost = estimateTokens(history[i].content) + 4;
    if (cost > turnBudget) break;
    turns.unshift(history[i]);
    turnBudget -= cost;
    budget -= cost;
  }
  const system: ChatMessage = { role: 'system', content: `${INSTRUCTIONS}\n\n# Code context\n\n${renderContext(context, Math.max(0, budget))}` };
  return [system, ...turns, question];
}
