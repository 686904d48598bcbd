/**
 * A2A 0.3.0's HTTP+JSON binding carries the protobuf messages in their JSON form (`content` for
 * parts, `ROLE_USER`, `TASK_STATE_COMPLETED`, `statusUpdate` …), unlike JSON-RPC, which carries
 * the JSON schema objects (`parts`, `kind`, "user", "completed"). These functions convert between
 * the two; the request side accepts both the camelCase and snake_case spellings that protobuf JSON
 * parsers accept, and plain A2A JSON as well.
 */
// JSON of no fixed schema (A2A messages, the OpenAPI document), walked field by field.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above
type Json = Record<string, any>;

const STATES: Record<string, string> = {
  submitted: 'TASK_STATE_SUBMITTED', working: 'TASK_STATE_WORKING', completed: 'TASK_STATE_COMPLETED',
  failed: 'TASK_STATE_FAILED', canceled: 'TASK_STATE_CANCELLED', 'input-required': 'TASK_STATE_INPUT_REQUIRED',
  rejected: 'TASK_STATE_REJECTED', 'auth-required': 'TASK_STATE_AUTH_REQUIRED', unknown: 'TASK_STATE_UNSPECIFIED',
};

const pick = (o: Json, ...names: string[]) => names.map((n) => o?.[n]).find((v) => v !== undefined);
const defined = (o: Json) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

// ---- A2A JSON → protobuf JSON (responses) ----

export function partToProto(part: Json): Json {
  if (part.kind === 'text') return { text: part.text };
  if (part.kind === 'file') {
    const f = part.file ?? {};
    return { file: defined({ fileWithUri: f.uri, fileWithBytes: f.bytes, mimeType: f.mimeType }) };
  }
  return { data: { data: part.data } };
}

export function messageToProto(m: Json): Json {
  return defined({
    messageId: m.messageId, contextId: m.contextId, taskId: m.taskId,
    role: m.role === 'agent' ? 'ROLE_AGENT' : 'ROLE_USER',
    content: (m.parts ?? []).map(partToProto), metadata: m.metadata, extensions: m.extensions,
  });
}

const statusToProto = (s: Json) => defined({ state: STATES[s.state] ?? 'TASK_STATE_UNSPECIFIED', message: s.message && messageToProto(s.message), timestamp: s.timestamp });

const artifactToProto = (a: Json) => defined({
  artifactId: a.artifactId, name: a.name, description: a.description, parts: (a.parts ?? []).map(partToProto), metadata: a.metadata, extensions: a.extensions,
});

export function taskToProto(t: Json): Json {
  return defined({
    id: t.id, contextId: t.contextId, status: statusToProto(t.status ?? {}),
    artifacts: (t.artifacts ?? []).map(artifactToProto), history: (t.history ?? []).map(messageToProto), metadata: t.metadata,
  });
}

/** One event of a stream (or the result of message:send), wrapped as StreamResponse / SendMessageResponse. */
export function eventToProto(e: Json): Json {
  switch (e.kind) {
    case 'task': return { task: taskToProto(e) };
    case 'message': return { message: messageToProto(e) };
    case 'status-update': return { statusUpdate: defined({ taskId: e.taskId, contextId: e.contextId, status: statusToProto(e.status), final: e.final, metadata: e.metadata }) };
    case 'artifact-update': return { artifactUpdate: defined({ taskId: e.taskId, contextId: e.contextId, artifact: artifactToProto(e.artifact), append: e.append, lastChunk: e.lastChunk, metadata: e.metadata }) };
    default: return e;
  }
}

// ---- protobuf JSON (or A2A JSON) → A2A JSON (requests) ----

function partFromProto(p: Json): Json {
  if (!p || typeof p !== 'object') return p;
  if ('kind' in p) return p;
  if (p.text !== undefined) return { kind: 'text', text: p.text, ...(p.metadata ? { metadata: p.metadata } : {}) };
  if (p.file !== undefined) {
    const f = p.file ?? {};
    return { kind: 'file', file: defined({ uri: pick(f, 'fileWithUri', 'file_with_uri', 'uri'), bytes: pick(f, 'fileWithBytes', 'file_with_bytes', 'bytes'), mimeType: pick(f, 'mimeType', 'mime_type'), name: f.name }) };
  }
  if (p.data !== undefined) {
    // DataPart is `{data: Struct}`, so the payload sits one level down.
    const d = p.data;
    const data = d && typeof d === 'object' && !Array.isArray(d) && Object.keys(d).length === 1 && 'data' in d ? d.data : d;
    return { kind: 'data', data };
  }
  return { kind: undefined, ...p };
}

function roleFromProto(role: unknown): unknown {
  if (role === 'ROLE_USER' || role === 1) return 'user';
  if (role === 'ROLE_AGENT' || role === 2) return 'agent';
  return role === 'user' || role === 'agent' ? role : undefined;
}

export function messageFromProto(m: unknown): unknown {
  if (!m || typeof m !== 'object' || Array.isArray(m)) return m;
  const o = m as Json;
  const parts = o.parts ?? o.content;
  return defined({
    kind: 'message',
    messageId: pick(o, 'messageId', 'message_id'),
    contextId: pick(o, 'contextId', 'context_id') || undefined,
    taskId: pick(o, 'taskId', 'task_id') || undefined,
    role: roleFromProto(o.role),
    parts: Array.isArray(parts) ? parts.map(partFromProto) : parts,
    metadata: o.metadata,
    extensions: o.extensions,
    referenceTaskIds: pick(o, 'referenceTaskIds', 'reference_task_ids'),
  });
}

/** SendMessageRequest → MessageSendParams. */
export function sendParamsFromProto(body: unknown): Json {
  const o = (body && typeof body === 'object' ? body : {}) as Json;
  const c = o.configuration as Json | undefined;
  return defined({
    message: messageFromProto(pick(o, 'message', 'request')),
    configuration: c && typeof c === 'object' ? defined({
      blocking: c.blocking,
      historyLength: pick(c, 'historyLength', 'history_length'),
      acceptedOutputModes: pick(c, 'acceptedOutputModes', 'accepted_output_modes'),
    }) : c,
    metadata: o.metadata,
  });
}
