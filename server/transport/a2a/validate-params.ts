import { A2AError } from '@a2a-js/sdk/server';

/**
 * Checks the params of the A2A methods before the SDK sees them: the SDK trusts its input, and a
 * malformed message must be -32602 (invalid params) naming what is wrong, never a failed task or
 * an internal error.
 */
type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const bad = (message: string) => A2AError.invalidParams(message);

export function validateMessageSendParams(params: unknown): void {
  if (!isObject(params)) throw bad('params: must be an object');
  const m = params.message;
  if (!isObject(m)) throw bad('params.message: is required and must be an object');
  if (m.kind !== undefined && m.kind !== 'message') throw bad('params.message.kind: must be "message"');
  if (typeof m.messageId !== 'string' || !m.messageId) throw bad('params.message.messageId: is required and must be a non-empty string');
  if (m.role === undefined) throw bad('params.message.role: is required ("user")');
  if (m.role !== 'user' && m.role !== 'agent') throw bad('params.message.role: must be "user" or "agent"');
  for (const field of ['taskId', 'contextId'] as const) {
    if (m[field] !== undefined && typeof m[field] !== 'string') throw bad(`params.message.${field}: must be a string`);
  }
  if (m.metadata !== undefined && !isObject(m.metadata)) throw bad('params.message.metadata: must be an object');
  if (!Array.isArray(m.parts) || m.parts.length === 0) throw bad('params.message.parts: must be a non-empty array');
  m.parts.forEach((part, i) => validatePart(part, `params.message.parts[${i}]`));
  const c = params.configuration;
  if (c !== undefined) {
    if (!isObject(c)) throw bad('params.configuration: must be an object');
    if (c.blocking !== undefined && typeof c.blocking !== 'boolean') throw bad('params.configuration.blocking: must be a boolean');
    checkHistoryLength(c.historyLength, 'params.configuration.historyLength');
    if (c.acceptedOutputModes !== undefined && (!Array.isArray(c.acceptedOutputModes) || c.acceptedOutputModes.some((x) => typeof x !== 'string'))) {
      throw bad('params.configuration.acceptedOutputModes: must be an array of strings');
    }
  }
}

function validatePart(part: unknown, where: string): void {
  if (!isObject(part)) throw bad(`${where}: must be an object`);
  switch (part.kind) {
    case 'text':
      if (typeof part.text !== 'string') throw bad(`${where}.text: must be a string`);
      return;
    case 'data':
      if (!isObject(part.data)) throw bad(`${where}.data: must be an object`);
      return;
    case 'file':
      if (!isObject(part.file)) throw bad(`${where}.file: must be an object`);
      return;
    default:
      throw bad(`${where}.kind: must be one of "text", "data", "file"`);
  }
}

function checkHistoryLength(value: unknown, where: string): void {
  if (value === undefined || value === null) return;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) throw bad(`${where}: must be a non-negative integer`);
}

export function validateTaskQueryParams(params: unknown): void {
  validateTaskIdParams(params);
  checkHistoryLength((params as Json).historyLength, 'params.historyLength');
}

export function validateTaskIdParams(params: unknown): void {
  if (!isObject(params)) throw bad('params: must be an object');
  if (typeof params.id !== 'string' || !params.id) throw bad('params.id: is required and must be a non-empty string');
  if (params.metadata !== undefined && !isObject(params.metadata)) throw bad('params.metadata: must be an object');
}

/** Validates the params of a method this binding serves; unknown methods are left to the SDK (-32601). */
export function validateParams(method: string, params: unknown): void {
  switch (method) {
    case 'message/send': case 'message/stream': return validateMessageSendParams(params);
    case 'tasks/get': return validateTaskQueryParams(params);
    case 'tasks/cancel': case 'tasks/resubscribe': return validateTaskIdParams(params);
    default:
  }
}
