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

/** `kernels`: where the products run (one thread, or two: the same model to the bit). */
export function trainCorpusModel(texts: string[], options: TrainOptions, kernels: KernelRunner = serialKernels): CorpusModel | null {
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
  const X = buildMatrix(docs, index, idf, kernels);
  const learned = randomizedSvd(X, terms.length, dims, options.powerIterations ?? 2, options.seed ?? 42, kernels);
  // A small corpus yields fewer dimensions; pad so every model of this provider has the same width.
  const vectors = new Float32Array(terms.length * options.dims);
  for (let r = 0; r < terms.length; r++) vectors.set(learned.subarray(r * dims, (r + 1) * dims), r * options.dims);
  return { terms, idf, vectors, dims: options.dims, trainedChunks: texts.length };
}

/** Sparse rows (CSR), each row scaled to unit length. */
type Csr = { rows: number; ptr: Int32Array; col: Int32Array; val: Float32Array };

function buildMatrix(docs: string[][], index: Map<string, number>, idf: Float32Array, kernels: KernelRunner): Csr {
  const ptr = kernels.int32(docs.length + 1);
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
  const col = kernels.int32(cols.length);
  col.set(cols);
  const val = kernels.float32(vals.length);
  val.set(vals);
  return { rows: docs.length, ptr, col, val };
}

/**
 * Runs training's products, each in `parts` parts that write disjoint elements (see KERNELS): on this thread
 * alone (`serialKernels`), or this thread and a helper thread (kernel-threads.ts), whose matrices are then
 * shared memory. Each element is the same sum in the same order whatever the split: the model is the same to
 * the bit on one thread or two.
 */
export interface KernelRunner {
  float64(n: number): Float64Array;
  float32(n: number): Float32Array;
  int32(n: number): Int32Array;
  run<K extends KernelName>(kernel: K, args: KernelArgs<K>): void;
}

export const serialKernels: KernelRunner = {
  float64: (n) => new Float64Array(n),
  float32: (n) => new Float32Array(n),
  int32: (n) => new Int32Array(n),
  run: (kernel, args) => runKernel(kernel, args, 0, 1),
};

/** Part `part` of `parts` of a kernel. */
export function runKernel<K extends KernelName>(kernel: K, args: KernelArgs<K>, part: number, parts: number): void {
  (KERNELS[kernel] as (a: KernelArgs<K>, part: number, parts: number) => void)(args, part, parts);
}

/** The rows [from, to) of part `part` of `parts` over m rows, cut at multiples of four (the blocks of the loops below). */
function rowSpan(m: number, part: number, parts: number): [number, number] {
  const cut = (p: number) => (p >= parts ? m : Math.min(m, Math.round((m * p) / parts / 4) * 4));
  return [cut(part), cut(part + 1)];
}

/** Rows [from, to) of an upper triangle of side l whose parts hold about the same number of elements. */
function triangleSpan(l: number, part: number, parts: number): [number, number] {
  const cut = (p: number) => {
    if (p >= parts) return l;
    const want = (l * (l + 1) / 2) * (p / parts);
    let i = 0;
    for (let done = 0; i < l && done < want; i++) done += l - i;
    return i;
  };
  return [cut(part), cut(part + 1)];
}

export const KERNELS = {
  /** Y (rows × l) = X · M, M is (V × l) row-major; parts by rows of Y. */
  mulXM(a: Csr & { M: Float64Array; l: number; Y: Float64Array }, part: number, parts: number): void {
    const { ptr, col, val, M, l, Y } = a;
    const [from, to] = rowSpan(a.rows, part, parts);
    for (let r = from; r < to; r++) {
      const yo = r * l;
      for (let k = ptr[r]; k < ptr[r + 1]; k++) {
        const w = val[k];
        const mo = col[k] * l;
        for (let c = 0; c < l; c++) Y[yo + c] += w * M[mo + c];
      }
    }
  },

  /** Z (V × l) = Xᵀ · Q, Q is (rows × l) row-major; parts by columns of Z (each part reads every row). */
  mulXtQ(a: Csr & { Q: Float64Array; l: number; Z: Float64Array }, part: number, parts: number): void {
    const { ptr, col, val, Q, l, Z } = a;
    const from = Math.round((l * part) / parts), to = Math.round((l * (part + 1)) / parts);
    for (let r = 0; r < a.rows; r++) {
      const qo = r * l;
      for (let k = ptr[r]; k < ptr[r + 1]; k++) {
        const w = val[k];
        const zo = col[k] * l;
        for (let c = from; c < to; c++) Z[zo + c] += w * Q[qo + c];
      }
    }
  },

  /**
   * The upper triangle of G = AᵀA (l × l) for a (m × l) row-major A; parts by rows of G. Four rows of A at a
   * time: each pass over G's upper triangle adds four rows' products, so G (l² doubles, more than the
   * first-level cache holds) is read and written a quarter as often.
   */
  gram(a: { A: Float64Array; m: number; l: number; G: Float64Array }, part: number, parts: number): void {
    const { A, m, l, G } = a;
    const [from, to] = triangleSpan(l, part, parts);
    let r = 0;
    for (; r + 3 < m; r += 4) {
      const o0 = r * l, o1 = o0 + l, o2 = o1 + l, o3 = o2 + l;
      for (let i = from; i < to; i++) {
        const a0 = A[o0 + i], a1 = A[o1 + i], a2 = A[o2 + i], a3 = A[o3 + i];
        const g = i * l;
        for (let j = i; j < l; j++) G[g + j] += a0 * A[o0 + j] + a1 * A[o1 + j] + a2 * A[o2 + j] + a3 * A[o3 + j];
      }
    }
    for (; r < m; r++) {
      const o = r * l;
      for (let i = from; i < to; i++) {
        const x = A[o + i];
        const g = i * l;
        for (let j = i; j < l; j++) G[g + j] += x * A[o + j];
      }
    }
  },

  /**
   * A ← A R⁻¹ for an upper-triangular R, given as Rᵀ (its columns as consecutive rows) and the pivots'
   * inverses, each row solved forward; parts by rows. Four rows of A at a time, so that each element of R
   * is loaded once per four.
   */
  divideByUpper(a: { A: Float64Array; m: number; l: number; Rt: Float64Array; inverse: Float64Array }, part: number, parts: number): void {
    const { A, l, Rt, inverse } = a;
    const [from, to] = rowSpan(a.m, part, parts);
    // The rows being solved, in place: element j of a row is final once columns 0..j-1 are.
    let r = from;
    for (; r + 3 < to; r += 4) {
      const o0 = r * l, o1 = o0 + l, o2 = o1 + l, o3 = o2 + l;
      for (let j = 0; j < l; j++) {
        let s0 = A[o0 + j], s1 = A[o1 + j], s2 = A[o2 + j], s3 = A[o3 + j];
        const t = j * l;
        for (let k = 0; k < j; k++) {
          const q = Rt[t + k];
          s0 -= A[o0 + k] * q; s1 -= A[o1 + k] * q; s2 -= A[o2 + k] * q; s3 -= A[o3 + k] * q;
        }
        const v = inverse[j];
        A[o0 + j] = s0 * v; A[o1 + j] = s1 * v; A[o2 + j] = s2 * v; A[o3 + j] = s3 * v;
      }
    }
    for (; r < to; r++) {
      const o = r * l;
      for (let j = 0; j < l; j++) {
        let s = A[o + j];
        const t = j * l;
        for (let k = 0; k < j; k++) s -= A[o + k] * Rt[t + k];
        A[o + j] = s * inverse[j];
      }
    }
  },

  /**
   * out = A Bᵀ for a (m × n) A and a (p × n) B, both row-major, as float32; parts by rows of A. Four rows of A
   * at a time, so each element of B is loaded once per four products (the loads bound this loop, not the
   * arithmetic: 2× faster than a row at a time on payload's words). Each element is the same sum in the same
   * order as one row's dot product.
   */
  productWithTranspose(a: { A: Float64Array; m: number; n: number; B: Float64Array; p: number; out: Float32Array }, part: number, parts: number): void {
    const { A, n, B, p, out } = a;
    const [from, to] = rowSpan(a.m, part, parts);
    let r = from;
    for (; r + 3 < to; r += 4) {
      const o0 = r * n, o1 = o0 + n, o2 = o1 + n, o3 = o2 + n;
      for (let c = 0; c < p; c++) {
        let s0 = 0, s1 = 0, s2 = 0, s3 = 0;
        const b = c * n;
        for (let i = 0; i < n; i++) {
          const x = B[b + i];
          s0 += A[o0 + i] * x; s1 += A[o1 + i] * x; s2 += A[o2 + i] * x; s3 += A[o3 + i] * x;
        }
        out[r * p + c] = s0; out[(r + 1) * p + c] = s1; out[(r + 2) * p + c] = s2; out[(r + 3) * p + c] = s3;
      }
    }
    for (; r < to; r++) {
      const o = r * n;
      for (let c = 0; c < p; c++) {
        let s = 0;
        const b = c * n;
        for (let i = 0; i < n; i++) s += A[o + i] * B[b + i];
        out[r * p + c] = s;
      }
    }
  },
};

export type KernelName = keyof typeof KERNELS;
export type KernelArgs<K extends KernelName> = Parameters<(typeof KERNELS)[K]>[0];

/** Y = X · M into Y (rows × l), which is cleared first. */
function mulXM(X: Csr, M: Float64Array, l: number, kernels: KernelRunner, Y: Float64Array): void {
  Y.fill(0);
  kernels.run('mulXM', { ...X, M, l, Y });
}

/** Z = Xᵀ · Q into Z (V × l), which is cleared first. */
function mulXtQ(X: Csr, Q: Float64Array, l: number, kernels: KernelRunner, Z: Float64Array): void {
  Z.fill(0);
  kernels.run('mulXtQ', { ...X, Q, l, Z });
}

/**
 * Orthonormalizes the l columns of a (m × l) row-major matrix in place by Cholesky QR: G = AᵀA = RᵀR,
 * A ← A R⁻¹. One pass leaves the columns orthogonal to within about κ(A)²·ε: for the matrices of the
 * power iteration here (κ is the spread of the top singular values, tens to a few thousand) that is far
 * below what a float32 model keeps, so the second pass of "CholeskyQR2" bought nothing and was half of
 * training's time. Columns whose pivot vanishes (a rank-deficient block) come out zero.
 */
export function orthonormalize(A: Float64Array, m: number, l: number, kernels: KernelRunner = serialKernels): void {
  const R = cholesky(gram(A, m, l, kernels), l);
  const Rt = kernels.float64(l * l);
  for (let k = 0; k < l; k++) for (let j = 0; j < l; j++) Rt[j * l + k] = R[k * l + j];
  const inverse = kernels.float64(l);
  for (let j = 0; j < l; j++) inverse[j] = Rt[j * l + j] > 1e-12 ? 1 / Rt[j * l + j] : 0;
  kernels.run('divideByUpper', { A, m, l, Rt, inverse });
}

/** G = AᵀA (l × l) for a (m × l) row-major A. */
function gram(A: Float64Array, m: number, l: number, kernels: KernelRunner): Float64Array {
  const G = kernels.float64(l * l);
  kernels.run('gram', { A, m, l, G });
  for (let i = 0; i < l; i++) for (let j = 0; j < i; j++) G[i * l + j] = G[j * l + i];
  return G;
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
function randomizedSvd(X: Csr, V: number, k: number, powerIterations: number, seed: number, kernels: KernelRunner): Float32Array {
  const l = Math.min(k + 16, V, X.rows);
  const random = gaussian(seed);
  // Two matrices for the whole iteration, each product written over the one before it: Q (rows × l), and Z (V × l),
  // which holds the random start first. Garbage a helper thread's views keep alive until its next collection would
  // otherwise be every step's (tens of MB on payload).
  const Q = kernels.float64(X.rows * l);
  const Z = kernels.float64(V * l);
  for (let i = 0; i < Z.length; i++) Z[i] = random();
  mulXM(X, Z, l, kernels, Q);
  orthonormalize(Q, X.rows, l, kernels);
  mulXtQ(X, Q, l, kernels, Z);
  for (let it = 0; it < powerIterations; it++) {
    orthonormalize(Z, V, l, kernels);
    mulXM(X, Z, l, kernels, Q);
    orthonormalize(Q, X.rows, l, kernels);
    mulXtQ(X, Q, l, kernels, Z);
  }
  // B = Qᵀ X = Zᵀ (l × V). B Bᵀ = Zᵀ Z = U diag(σ²) Uᵀ; right singular vectors = Z U diag(1/σ).
  const { values, vectors } = symmetricEigen(gram(Z, V, l, kernels), l);
  const order = [...values.keys()].sort((a, b) => values[b] - values[a]).slice(0, k);
  // Column c of the output is Z·u / σ for the c-th eigenvector u: the u's, scaled, as consecutive rows.
  const U = kernels.float64(k * l);
  for (let c = 0; c < order.length; c++) {
    const e = order[c];
    const sigma = Math.sqrt(Math.max(values[e], 0));
    if (sigma < 1e-9) continue;
    for (let i = 0; i < l; i++) U[c * l + i] = vectors[i * l + e] / sigma;
  }
  return productWithTranspose(Z, V, l, U, k, kernels);
}

/** A Bᵀ for a (m × n) A and a (p × n) B, both row-major, as float32 (KERNELS.productWithTranspose). */
export function productWithTranspose(A: Float64Array, m: number, n: number, B: Float64Array, p: number, kernels: KernelRunner = serialKernels): Float32Array {
  const out = kernels.float32(m * p);
  kernels.run('productWithTranspose', { A, m, n, B, p, out });
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
