import fs from 'node:fs';
import path from 'node:path';

/**
 * Writes a tiny BERT-shaped sentence-embedding model folder (what OnnxEmbedder loads from a user's
 * disk): `onnx/model.onnx` taking input_ids, attention_mask and token_type_ids and returning
 * last_hidden_state (a Gather from a fixed token-embedding table), and a WordPiece `vocab.txt`.
 * The ONNX protobuf is encoded here by hand, so the test needs no download and no Python.
 */
export function writeTinyBertModel(dir: string, hidden = 64): string {
  const vocab = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', 'parse', 'signed', 'sign', 'cookie', 'secret', 'signature', 'verify', 'value',
    'circle', 'area', 'radius', 'math', 'pi', 'class', 'return', 'retry', 'request', 'backoff', 'exponential', 'when', 'it', 'fails',
    'the', 'with', 'a', 'its', 'export', 'function', '##s', '##ed', '(', ')', '{', '}', ',', '.', '*'];
  fs.mkdirSync(path.join(dir, 'onnx'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'vocab.txt'), `${vocab.join('\n')}\n`);
  // Deterministic token vectors.
  const weights = new Float32Array(vocab.length * hidden);
  let seed = 12345;
  for (let i = 0; i < weights.length; i++) {
    seed = (seed * 1103515245 + 12345) >>> 0;
    weights[i] = (seed / 2 ** 32) * 2 - 1;
  }
  fs.writeFileSync(path.join(dir, 'onnx', 'model.onnx'), modelProto(vocab.length, hidden, weights));
  return dir;
}

// --- minimal protobuf encoding ---
const varint = (n: number | bigint): Buffer => {
  let v = BigInt(n);
  const out: number[] = [];
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v) b |= 0x80;
    out.push(b);
  } while (v);
  return Buffer.from(out);
};
const key = (field: number, wire: number) => varint((field << 3) | wire);
const int = (field: number, n: number) => Buffer.concat([key(field, 0), varint(n)]);
const bytes = (field: number, b: Buffer | string) => {
  const buf = typeof b === 'string' ? Buffer.from(b, 'utf8') : b;
  return Buffer.concat([key(field, 2), varint(buf.length), buf]);
};
const msg = (field: number, ...parts: Buffer[]) => bytes(field, Buffer.concat(parts));

const FLOAT = 1;
const INT64 = 7;

/** ValueInfoProto with a tensor type of symbolic/fixed dims. */
function valueInfo(field: number, name: string, elemType: number, dims: (string | number)[]): Buffer {
  const shape = dims.map((d) => msg(1, typeof d === 'string' ? bytes(2, d) : int(1, d)));
  return msg(field, bytes(1, name), msg(2, msg(1, int(1, elemType), msg(2, ...shape))));
}

function modelProto(vocabSize: number, hidden: number, weights: Float32Array): Buffer {
  const initializer = msg(5, int(1, vocabSize), int(1, hidden), int(2, FLOAT), bytes(8, 'embeddings'),
    bytes(9, Buffer.from(weights.buffer, weights.byteOffset, weights.byteLength)));
  const node = msg(1, bytes(1, 'embeddings'), bytes(1, 'input_ids'), bytes(2, 'last_hidden_state'), bytes(3, 'gather'), bytes(4, 'Gather'));
  const graph = msg(7,
    node,
    bytes(2, 'tiny-bert'),
    initializer,
    valueInfo(11, 'input_ids', INT64, ['batch', 'sequence']),
    valueInfo(11, 'attention_mask', INT64, ['batch', 'sequence']),
    valueInfo(11, 'token_type_ids', INT64, ['batch', 'sequence']),
    valueInfo(12, 'last_hidden_state', FLOAT, ['batch', 'sequence', hidden]),
  );
  return Buffer.concat([int(1, 8), bytes(2, 'loupe-test'), graph, msg(8, bytes(1, ''), int(2, 13))]);
}
