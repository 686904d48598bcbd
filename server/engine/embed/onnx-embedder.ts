import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { type Embedder, normalize } from './embedder';
import { WordPiece } from './wordpiece';
import { LoupeError } from '../errors';

type Ort = typeof import('onnxruntime-node');

/**
 * A sentence-embedding model in ONNX format in a local folder (for example all-MiniLM-L6-v2 as
 * exported by Hugging Face: `model.onnx` or `onnx/model.onnx`, plus `tokenizer.json` or `vocab.txt`),
 * run by onnxruntime-node on the CPU. Token vectors are mean-pooled over the attention mask unless
 * the model already outputs a pooled sentence vector. Nothing is downloaded here.
 */
export class OnnxEmbedder implements Embedder {
  private constructor(
    readonly id: string,
    readonly dims: number,
    private readonly ort: Ort,
    private readonly session: import('onnxruntime-node').InferenceSession,
    private readonly tokenizer: WordPiece,
  ) {}

  static async load(modelDir: string, options: { maxTokens?: number } = {}): Promise<OnnxEmbedder> {
    const modelFile = ['model.onnx', 'onnx/model.onnx', 'model_quantized.onnx', 'onnx/model_quantized.onnx']
      .map((f) => path.join(modelDir, f)).find((f) => fs.existsSync(f));
    if (!modelFile) throw new LoupeError('VALIDATION_FAILED', `no model.onnx in ${modelDir} (looked for model.onnx and onnx/model.onnx)`);
    const maxTokens = options.maxTokens ?? 256;
    const tokenizerJson = path.join(modelDir, 'tokenizer.json');
    const vocabTxt = path.join(modelDir, 'vocab.txt');
    let tokenizer: WordPiece;
    if (fs.existsSync(tokenizerJson)) tokenizer = WordPiece.fromTokenizerJson(JSON.parse(fs.readFileSync(tokenizerJson, 'utf8')), maxTokens);
    else if (fs.existsSync(vocabTxt)) tokenizer = WordPiece.fromVocabTxt(fs.readFileSync(vocabTxt, 'utf8'), { lowercase: lowercaseFromConfig(modelDir), maxTokens });
    else throw new LoupeError('VALIDATION_FAILED', `no tokenizer.json or vocab.txt in ${modelDir}`);
    const ort = await import('onnxruntime-node');
    const session = await ort.InferenceSession.create(modelFile, { graphOptimizationLevel: 'all', intraOpNumThreads: 1 });
    if (!session.inputNames.includes('input_ids')) throw new LoupeError('VALIDATION_FAILED', `the model in ${modelDir} has no input_ids input (inputs: ${session.inputNames.join(', ')})`);
    const digest = createHash('sha1').update(fs.readFileSync(modelFile)).digest('hex').slice(0, 12);
    const probe = new OnnxEmbedder('probe', 0, ort, session, tokenizer);
    const [v] = await probe.run(['dimension probe']);
    return new OnnxEmbedder(`onnx:${path.basename(path.resolve(modelDir))}:${digest}`, v.length, ort, session, tokenizer);
  }

  async embed(texts: string[]): Promise<(Float32Array | null)[]> {
    const out: (Float32Array | null)[] = [];
    // Small batches keep padding waste and memory low on long code chunks.
    for (let i = 0; i < texts.length; i += 16) out.push(...(await this.run(texts.slice(i, i + 16))).map((v) => normalize(v)));
    return out;
  }

  private async run(texts: string[]): Promise<Float32Array[]> {
    const encoded = texts.map((t) => this.tokenizer.encode(t));
    const seq = Math.max(...encoded.map((e) => e.length));
    const n = texts.length;
    const ids = new BigInt64Array(n * seq);
    const mask = new BigInt64Array(n * seq);
    encoded.forEach((e, r) => e.forEach((id, c) => { ids[r * seq + c] = BigInt(id); mask[r * seq + c] = 1n; }));
    const feeds: Record<string, import('onnxruntime-node').Tensor> = {
      input_ids: new this.ort.Tensor('int64', ids, [n, seq]),
    };
    if (this.session.inputNames.includes('attention_mask')) feeds.attention_mask = new this.ort.Tensor('int64', mask, [n, seq]);
    if (this.session.inputNames.includes('token_type_ids')) feeds.token_type_ids = new this.ort.Tensor('int64', new BigInt64Array(n * seq), [n, seq]);
    const outputs = await this.session.run(feeds);
    const pooledName = ['sentence_embedding', 'pooler_output'].find((k) => outputs[k]);
    if (pooledName && outputs[pooledName].dims.length === 2) {
      const t = outputs[pooledName];
      const d = t.dims[1];
      const data = t.data as Float32Array;
      return encoded.map((_, r) => data.slice(r * d, (r + 1) * d));
    }
    const t = outputs.last_hidden_state ?? outputs[this.session.outputNames[0]];
    if (t.dims.length !== 3) throw new LoupeError('SERVICE_UNAVAILABLE', `unexpected model output shape [${t.dims.join(', ')}]`);
    const d = t.dims[2];
    const data = t.data as Float32Array;
    return encoded.map((e, r) => {
      const v = new Float32Array(d);
      for (let c = 0; c < e.length; c++) for (let k = 0; k < d; k++) v[k] += data[(r * seq + c) * d + k];
      for (let k = 0; k < d; k++) v[k] /= e.length;
      return v;
    });
  }
}

function lowercaseFromConfig(dir: string): boolean {
  try {
    const cfg = JSON.parse(fs.readFileSync(path.join(dir, 'tokenizer_config.json'), 'utf8')) as { do_lower_case?: boolean };
    return cfg.do_lower_case ?? true;
  } catch {
    return true;
  }
}
