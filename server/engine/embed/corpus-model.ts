import { textTerms } from './terms';

/**
 * A word-vector model learned from the indexed code itself (latent semantic analysis): chunks ×
 * stemmed sub-words, weighted by log-tf·idf, reduced by a randomized truncated SVD (Halko et al.).
 * Words that occur in the same chunks (a function's name, its parameters, the words of its doc
 * comment) end up close, so a query can find code that shares its topic without sharing its words.
 * No download: it is trained in-process from whatever is indexed.
 */
export interface CorpusModel {
  terms: string[];
  idf: Float32Array;
  /** terms.length × dims, row-major. */
  vectors: Float32Array;
  dims: number;
  trainedChunks: number;
}

export interface TrainOptions {
  dims: number;
  /** Chunks beyond this are sampled evenly (training cost grows with it). */
  maxDocs?: number;
  maxTerms?: number;
  powerIterations?: number;
  seed?: number;
}

export function trainCorpusModel(texts: string[], options: TrainOptions): CorpusModel | null {
  const maxDocs = options.maxDocs ?? 20000;
  const step = Math.max(1, texts.length / maxDocs);
  const docs: string[][] = [];
  for (let i = 0; i < texts.length && docs.length < maxDocs; i = Math.floor(docs.length * step)) docs.push(textTerms(texts[i]));
  const n = docs.length;
  const df = new Map<string, number>();
  for (const d of docs) for (const t of new Set(d)) df.set(t, (df.get(t) ?? 0) + 1);
  // Words in one chunk only carry no co-occurrence; words in most chunks carry no topic.
  const candidates = [...df].filter(([, c]) => c >= 2 && c <= n * 0.5).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).slice(0, options.maxTerms ?? 30000);
  const dims = Math.min(options.dims, candidates.length - 1, n - 1);
  if (dims < 8) return null;
  const terms = candidates.map(([t]) => t);
  const index = new Map(terms.map((t, i) => [t, i]));
  const idf = new Float32Array(terms.length);
  candidates.forEach(([, c], i) => { idf[i] = Math.log((n + 1) / (c + 0.5)); });
  const X = buildMatrix(docs, index, idf);
  const learned = randomizedSvd(X, terms.length, dims, options.powerIterations ?? 2, options.seed ?? 42);
  // A small corpus yields fewer dimensions; pad so every model of this provider has the same width.
  const vectors = new Float32Array(terms.length * options.dims);
  for (let r = 0; r < terms.length; r++) vectors.set(learned.subarray(r * dims, (r + 1) * dims), r * options.dims);
  return { terms, idf, vectors, dims: options.dims, trainedChunks: texts.length };
}

/** Sparse rows (CSR), each row scaled to unit length. */
interface Csr { rows: number; ptr: Int32Array; col: Int32Array; val: Float32Array }

function buildMatrix(docs: string[][], index: Map<string, number>, idf: Float32Array): Csr {
  const ptr = new Int32Array(docs.length + 1);
  const cols: number[] = [];
  const vals: number[] = [];
  docs.forEach((d, r) => {
    const tf = new Map<number, number>();
    for (const t of d) {
      const j = index.get(t);
      if (j !== undefined) tf.set(j, (tf.get(j) ?? 0) + 1);
    }
    let norm = 0;
    const start = cols.length;
    for (const [j, c] of tf) {
      const w = (1 + Math.log(c)) * idf[j];
      cols.push(j); vals.push(w); norm += w * w;
    }
    const inv = norm > 0 ? 1 / Math.sqrt(norm) : 0;
    for (let k = start; k < vals.length; k++) vals[k] *= inv;
    ptr[r + 1] = cols.length;
  });
  return { rows: docs.length, ptr, col: Int32Array.from(cols), val: Float32Array.from(vals) };
}

/** Y (rows × l) = X · M, M is (V × l) row-major. */
function mulXM(X: Csr, M: Float64Array, l: number): Float64Array {
  const Y = new Float64Array(X.rows * l);
  for (let r = 0; r < X.rows; r++) {
    const yo = r * l;
    for (let k = X.ptr[r]; k < X.ptr[r + 1]; k++) {
      const w = X.val[k];
      const mo = X.col[k] * l;
      for (let c = 0; c < l; c++) Y[yo + c] += w * M[mo + c];
    }
  }
  return Y;
}

/** Z (V × l) = Xᵀ · Q, Q is (rows × l) row-major. */
function mulXtQ(X: Csr, Q: Float64Array, V: number, l: number): Float64Array {
  const Z = new Float64Array(V * l);
  for (let r = 0; r < X.rows; r++) {
    const qo = r * l;
    for (let k = X.ptr[r]; k < X.ptr[r + 1]; k++) {
      const w = X.val[k];
      const zo = X.col[k] * l;
      for (let c = 0; c < l; c++) Z[zo + c] += w * Q[qo + c];
    }
  }
  return Z;
}

/** Orthonormalizes the l columns of a (m × l) row-major matrix in place (Cholesky QR, twice for stability). */
function orthonormalize(A: Float64Array, m: number, l: number): void {
  for (let pass = 0; pass < 2; pass++) {
    const G = new Float64Array(l * l);
    for (let r = 0; r < m; r++) {
      const o = r * l;
      for (let i = 0; i < l; i++) {
        const a = A[o + i];
        if (a === 0) continue;
        for (let j = i; j < l; j++) G[i * l + j] += a * A[o + j];
      }
    }
    for (let i = 0; i < l; i++) for (let j = 0; j < i; j++) G[i * l + j] = G[j * l + i];
    const R = cholesky(G, l);
    // A ← A R⁻¹ (R upper triangular): solve row by row. R's columns are read as Rᵀ's rows (the same
    // products in the same order, read from consecutive memory; the same model, ~5% sooner on phaser ×4).
    const Rt = new Float64Array(l * l);
    for (let k = 0; k < l; k++) for (let j = 0; j < l; j++) Rt[j * l + k] = R[k * l + j];
    const row = new Float64Array(l);
    for (let r = 0; r < m; r++) {
      const o = r * l;
      for (let j = 0; j < l; j++) {
        let s = A[o + j];
        const t = j * l;
        for (let k = 0; k < j; k++) s -= row[k] * Rt[t + k];
        row[j] = Rt[t + j] > 1e-12 ? s / Rt[t + j] : 0;
      }
      for (let j = 0; j < l; j++) A[o + j] = row[j];
    }
  }
}

/** Upper-triangular R with RᵀR = G; rank-deficient directions get a zero pivot. */
function cholesky(G: Float64Array, l: number): Float64Array {
  const R = new Float64Array(l * l);
  for (let j = 0; j < l; j++) {
    let d = G[j * l + j];
    for (let k = 0; k < j; k++) d -= R[k * l + j] * R[k * l + j];
    const pivot = d > 1e-12 * (G[j * l + j] || 1) ? Math.sqrt(d) : 0;
    R[j * l + j] = pivot;
    for (let i = j + 1; i < l; i++) {
      let s = G[j * l + i];
      for (let k = 0; k < j; k++) s -= R[k * l + j] * R[k * l + i];
      R[j * l + i] = pivot > 0 ? s / pivot : 0;
    }
  }
  return R;
}

/** Eigen-decomposition of a symmetric matrix by cyclic Jacobi rotations: values and column vectors. */
function symmetricEigen(S: Float64Array, l: number): { values: Float64Array; vectors: Float64Array } {
  const A = Float64Array.from(S);
  const V = new Float64Array(l * l);
  for (let i = 0; i < l; i++) V[i * l + i] = 1;
  for (let sweep = 0; sweep < 30; sweep++) {
    let off = 0;
    for (let p = 0; p < l; p++) for (let q = p + 1; q < l; q++) off += A[p * l + q] ** 2;
    if (off < 1e-20) break;
    for (let p = 0; p < l; p++) {
      for (let q = p + 1; q < l; q++) {
        const apq = A[p * l + q];
        if (Math.abs(apq) < 1e-15) continue;
        const theta = (A[q * l + q] - A[p * l + p]) / (2 * apq);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let k = 0; k < l; k++) {
          const akp = A[k * l + p];
          const akq = A[k * l + q];
          A[k * l + p] = c * akp - s * akq;
          A[k * l + q] = s * akp + c * akq;
        }
        for (let k = 0; k < l; k++) {
          const apk = A[p * l + k];
          const aqk = A[q * l + k];
          A[p * l + k] = c * apk - s * aqk;
          A[q * l + k] = s * apk + c * aqk;
        }
        for (let k = 0; k < l; k++) {
          const vkp = V[k * l + p];
          const vkq = V[k * l + q];
          V[k * l + p] = c * vkp - s * vkq;
          V[k * l + q] = s * vkp + c * vkq;
        }
      }
    }
  }
  const values = new Float64Array(l);
  for (let i = 0; i < l; i++) values[i] = A[i * l + i];
  return { values, vectors: V };
}

/** The top `k` right singular vectors of X as a (V × k) row-major Float32Array. */
function randomizedSvd(X: Csr, V: number, k: number, powerIterations: number, seed: number): Float32Array {
  const l = Math.min(k + 16, V, X.rows);
  const random = gaussian(seed);
  const omega = new Float64Array(V * l);
  for (let i = 0; i < omega.length; i++) omega[i] = random();
  let Q = mulXM(X, omega, l);
  orthonormalize(Q, X.rows, l);
  let Z = mulXtQ(X, Q, V, l);
  for (let it = 0; it < powerIterations; it++) {
    orthonormalize(Z, V, l);
    Q = mulXM(X, Z, l);
    orthonormalize(Q, X.rows, l);
    Z = mulXtQ(X, Q, V, l);
  }
  // B = Qᵀ X = Zᵀ (l × V). B Bᵀ = Zᵀ Z = U diag(σ²) Uᵀ; right singular vectors = Z U diag(1/σ).
  const C = new Float64Array(l * l);
  for (let r = 0; r < V; r++) {
    const o = r * l;
    for (let i = 0; i < l; i++) {
      const z = Z[o + i];
      if (z === 0) continue;
      for (let j = i; j < l; j++) C[i * l + j] += z * Z[o + j];
    }
  }
  for (let i = 0; i < l; i++) for (let j = 0; j < i; j++) C[i * l + j] = C[j * l + i];
  const { values, vectors } = symmetricEigen(C, l);
  const order = [...values.keys()].sort((a, b) => values[b] - values[a]).slice(0, k);
  const out = new Float32Array(V * k);
  for (let c = 0; c < order.length; c++) {
    const e = order[c];
    const sigma = Math.sqrt(Math.max(values[e], 0));
    if (sigma < 1e-9) continue;
    for (let r = 0; r < V; r++) {
      let s = 0;
      const o = r * l;
      for (let i = 0; i < l; i++) s += Z[o + i] * vectors[i * l + e];
      out[r * k + c] = s / sigma;
    }
  }
  return out;
}

function gaussian(seed: number): () => number {
  let s = seed >>> 0 || 1;
  const uniform = () => {
    s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0;
    return (s + 0.5) / 4294967296;
  };
  return () => Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
}

/** Model ⇄ bytes for the embedding_models table. */
export function serializeModel(m: CorpusModel): Buffer {
  const header = Buffer.from(JSON.stringify({ terms: m.terms, dims: m.dims, trainedChunks: m.trainedChunks }), 'utf8');
  const len = Buffer.alloc(4);
  len.writeUInt32LE(header.length);
  return Buffer.concat([len, header, Buffer.from(m.idf.buffer, m.idf.byteOffset, m.idf.byteLength),
    Buffer.from(m.vectors.buffer, m.vectors.byteOffset, m.vectors.byteLength)]);
}

export function deserializeModel(b: Buffer): CorpusModel {
  const hl = b.readUInt32LE(0);
  const h = JSON.parse(b.subarray(4, 4 + hl).toString('utf8')) as { terms: string[]; dims: number; trainedChunks: number };
  const V = h.terms.length;
  const body = b.subarray(4 + hl);
  const floats = new Float32Array(body.buffer.slice(body.byteOffset, body.byteOffset + body.byteLength));
  return { terms: h.terms, dims: h.dims, trainedChunks: h.trainedChunks, idf: floats.slice(0, V), vectors: floats.slice(V, V + V * h.dims) };
}
