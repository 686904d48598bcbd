import { randomUUID } from 'node:crypto';
import type { Artifact, Part } from '@a2a-js/sdk';
import type { OperationOutput } from '../common/invoke';

// JSON of no fixed schema (the API answers an agent reads), walked field by field.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above
type Json = Record<string, any>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

export type Publish = (artifact: Artifact, append: boolean, lastChunk: boolean) => void;

/** One HTTP operation of the API, run through inject (the executor binds the caller's key). */
export type CallOperation = (key: string, input: { pathParams?: Json; query?: Json; headers?: Json; body?: unknown }) => Promise<OperationOutput>;

export interface Question {
  question: string;
  auth: Record<string, string>;
  /** message/stream: answer chunks are published as they come; message/send: one artifact at the end. */
  streaming: boolean;
  conversationId?: string;
  signal: AbortSignal;
  call: CallOperation;
  publish: Publish;
  status: (parts: Part[]) => void;
}

export interface Outcome {
  ok: boolean;
  /** The final status message. */
  parts: Part[];
  conversationId?: string;
}

const SUBJECT = String.raw`(?:(?:this|the|my|our|that)\s+)?(?:[\w.@/-]+\s+)?(?:repo|repos|repository|repositories|project|codebase|code\s*base|library|package|app|application|code)`;
const OVERVIEW = [
  new RegExp(String.raw`^\s*what(?:'s|\s+is|\s+are|\s+does|\s+do)\s+${SUBJECT}\s*(?:do|does|about|for)?\s*[?.!]*\s*$`, 'i'),
  new RegExp(String.raw`^\s*(?:(?:give\s+me|show\s+me|write)\s+)?(?:an?\s+)?(?:overview|summary|description)\s+of\s+${SUBJECT}\s*[?.!]*\s*$`, 'i'),
  new RegExp(String.raw`^\s*(?:describe|summari[sz]e|explain|tell\s+me\s+about)\s+${SUBJECT}\s*[?.!]*\s*$`, 'i'),
];

/** "What does this repo do?" and its kin: answered from the blueprint rather than by research. */
export const isOverviewQuestion = (text: string) => OVERVIEW.some((re) => re.test(text));

/** A question in plain text, answered from the caller's repositories through the HTTP operations. */
export function answerQuestion(q: Question): Promise<Outcome> {
  return isOverviewQuestion(q.question) ? overview(q) : research(q);
}

function failure(output: OperationOutput, what: string): Outcome {
  const body = output.body;
  const message = isObject(body) && typeof body.message === 'string' ? body.message : `HTTP ${output.status}`;
  return { ok: false, parts: [{ kind: 'text', text: `${what} failed with ${output.status}: ${message}` }, { kind: 'data', data: { status: output.status, error: body ?? null } }] };
}

/**
 * Research (POST /v2/search with chat: true) over all the caller's repositories. Answer chunks
 * become text chunks of one artifact; the sources (the files the answer was grounded on) its
 * final data part. A follow-up in the same A2A context continues the research conversation.
 */
async function research(q: Question): Promise<Outcome> {
  q.status([{ kind: 'text', text: 'Researching your repositories' }]);
  const ask = (conversationId?: string) => q.call('POST /v2/search', {
    headers: { accept: 'application/x-ndjson' },
    body: { query: q.question, chat: true, ...(conversationId ? { conversation_id: conversationId } : {}) },
  });
  let output = await ask(q.conversationId);
  // The remembered conversation is gone (deleted, or this process restarted with another): start afresh.
  if (output.status === 404 && q.conversationId) output = await ask();
  if (!output.lines) return failure(output, 'research');
  const artifactId = `answer-${randomUUID()}`;
  let text = '';
  let started = false;
  let done: Json | undefined;
  let failed: Json | undefined;
  for await (const line of output.lines) {
    let event: Json;
    try { event = JSON.parse(line) as Json; } catch { continue; }
    if (event.type === 'chunk' && typeof event.text === 'string') {
      text += event.text;
      if (q.streaming && event.text) {
        q.publish({ artifactId, name: 'answer', parts: [{ kind: 'text', text: event.text }] }, started, false);
        started = true;
      }
    } else if (event.type === 'done') done = event;
    else if (event.type === 'error') failed = event;
  }
  if (q.signal.aborted) return { ok: false, parts: [] };
  if (!done) {
    const message = typeof failed?.message === 'string' ? failed.message : 'the answer stopped before it was complete';
    return { ok: false, parts: [{ kind: 'text', text: `research failed: ${message}` }, { kind: 'data', data: failed ?? {} }] };
  }
  const sources: Part = { kind: 'data', data: {
    sources: done.context_files ?? [], model: done.model, conversation_id: done.conversation_id ?? null,
    history_id: done.history_id ?? null, credits_used: done.credits_used,
  } };
  if (q.streaming && started) q.publish({ artifactId, name: 'answer', parts: [sources] }, true, true);
  else q.publish({ artifactId, name: 'answer', description: 'The answer (Markdown) and its sources', parts: [{ kind: 'text', text }, sources] }, false, true);
  const files = Array.isArray(done.context_files) ? done.context_files.length : 0;
  return {
    ok: true, conversationId: typeof done.conversation_id === 'string' ? done.conversation_id : undefined,
    parts: [{ kind: 'text', text: `Answered from ${files} source file${files === 1 ? '' : 's'} (model ${done.model}). Ask a follow-up in the same context to continue.` }],
  };
}

interface RepoRow { repo_id: string; name: string; url: string }

/**
 * "What does this repository do?": the blueprint's overview of the repositories the question
 * names, or of the caller's repositories (three at most) when it names none.
 */
async function overview(q: Question): Promise<Outcome> {
  q.status([{ kind: 'text', text: 'Reading the blueprint' }]);
  const listed = await q.call('GET /v2/repos', { query: { limit: 100 } });
  if (listed.status >= 400) return failure(listed, 'GET /v2/repos');
  const repos = (isObject(listed.body) && Array.isArray(listed.body.data) ? listed.body.data : []) as RepoRow[];
  const artifactId = `answer-${randomUUID()}`;
  if (!repos.length) {
    const text = 'You have no indexed repositories yet. Index a folder first: {"operationKey": "POST /v2/repos/index/new", "body": {"url": "/absolute/path/to/folder"}}';
    q.publish({ artifactId, name: 'answer', parts: [{ kind: 'text', text }, { kind: 'data', data: { sources: [] } }] }, false, true);
    return { ok: true, parts: [{ kind: 'text', text: 'No repositories to describe.' }] };
  }
  const words = q.question.toLowerCase();
  const named = repos.filter((r) => words.includes(r.name.toLowerCase()) || words.includes(r.name.split('/').pop()!.toLowerCase()));
  const chosen = (named.length ? named : repos).slice(0, 3);
  const sections: string[] = [];
  const sources: Json[] = [];
  for (const repo of chosen) {
    const blueprint = await q.call('GET /v2/repos/{repo_id}/blueprint', { pathParams: { repo_id: repo.repo_id } });
    if (blueprint.status >= 400) return failure(blueprint, `the blueprint of ${repo.name}`);
    const doc = isObject(blueprint.body) && isObject(blueprint.body.data) && typeof blueprint.body.data.documentation === 'string' ? blueprint.body.data.documentation : '';
    sections.push(chosen.length > 1 ? `# ${repo.name}\n\n${doc}` : doc);
    sources.push({ repo_id: repo.repo_id, repo_name: repo.name, url: repo.url, operation: 'GET /v2/repos/{repo_id}/blueprint' });
  }
  const more = repos.length - chosen.length;
  if (more > 0 && !named.length) sections.push(`(${more} more repositor${more === 1 ? 'y' : 'ies'}: name one in the question to describe it.)`);
  q.publish({ artifactId, name: 'answer', description: 'The blueprint overview (Markdown) and its sources', parts: [{ kind: 'text', text: sections.join('\n\n') }, { kind: 'data', data: { sources } }] }, false, true);
  return { ok: true, parts: [{ kind: 'text', text: `Described ${chosen.map((r) => r.name).join(', ')} from the blueprint.` }] };
}
