/**
 * The buffers a message may move to another thread instead of copying: of a typed array sent, or of those
 * in an object's fields. Only a view that owns its whole buffer (a pooled Buffer's would take its neighbours
 * along, and a view of part of a buffer would move the rest too); the sender must not use them afterwards.
 */
export function transferables(value: unknown): ArrayBuffer[] {
  const views = ArrayBuffer.isView(value) ? [value] : value && typeof value === 'object' ? Object.values(value).filter((v) => ArrayBuffer.isView(v)) : [];
  return [...new Set((views as ArrayBufferView[]).filter((v) => v.byteOffset === 0 && v.byteLength === v.buffer.byteLength).map((v) => v.buffer as ArrayBuffer))];
}
