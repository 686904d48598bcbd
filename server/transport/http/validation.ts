import type { FastifySchemaCompiler } from 'fastify';
import type { ValidateFunction } from 'ajv';
import type { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import { coercingAjv, strictAjv } from '../common/validate';

type Validator = ReturnType<FastifySchemaCompiler<object>> & { errors?: ValidateFunction['errors'] };
type SerializerFactory = ReturnType<typeof SerializerSelector>;
/** How long the server must have had no request before the warm-up compiles its next schema. */
const QUIET_MS = 500;
interface Pending { method: string; url: string; compile: () => void }
/** What warm() did: schemas compiled, and the ones that failed ("GET /v2/x: message"), left to their route's request. */
export interface Warmed { compiled: number; failed: string[] }

declare module 'fastify' {
  interface FastifyInstance {
    /** Compiles the route schemas no request has compiled yet, one per turn of the event loop (LazySchemas.warm). */
    warmSchemas: () => Promise<Warmed>;
    /** Compiles now the schemas of the routes given as `METHOD /url` (LazySchemas.compileNow). */
    compileSchemasNow: (routes: readonly string[]) => Warmed;
  }
}

/**
 * Route schemas compiled when they are first needed, not when the application is built: compiling every
 * route's request validators and response serializers was ~0.9 s of a start's main thread (issue 17),
 * spent on routes most starts never see. A route's first request compiles its own; `warm()`, called by the
 * host once no index run is going on, compiles the rest in the background one schema at a time, so a
 * later first request does not pay for it either (a route's first request on an idle server: 109–124 ms
 * before, 35 ms after).
 */
export class LazySchemas {
  private pending: Pending[] = [];
  private stopped = false;
  private lastRequest = 0;
  /** Ends the warm-up's current pause (stop()). */
  private wake: (() => void) | null = null;

  /** A request arrived: the warm-up waits until the server has been quiet for QUIET_MS. */
  touch(): void {
    this.lastRequest = Date.now();
  }

  /**
   * Bodies strictly, query strings, path parameters and headers coerced from text (transport/common/validate.ts).
   * The answers are Ajv's own (Fastify reads `errors` off the function it called).
   */
  readonly validatorCompiler: FastifySchemaCompiler<object> = ({ schema, httpPart, method, url }) => {
    const ajv = httpPart === 'body' ? strictAjv : coercingAjv;
    let compiled: ValidateFunction | null = null;
    const compile = () => (compiled ??= ajv.compile(schema as object));
    const validate: Validator = (data: unknown) => {
      const valid = compile()(data);
      validate.errors = compiled!.errors;
      return valid;
    };
    this.pending.push({ method, url, compile });
    return validate;
  };

  /** Fastify's own serializers (fast-json-stringify, as its default compiler builds them), each built at its first use. */
  serializers(build: SerializerFactory): SerializerFactory {
    return (externalSchemas, options) => {
      const factory = build(externalSchemas, options);
      return (route) => {
        let serialize: ((doc: unknown) => string) | null = null;
        const compile = () => (serialize ??= factory(route));
        this.pending.push({ method: route.method, url: route.url, compile });
        return (doc) => compile()(doc);
      };
    };
  }

  /**
   * Compiles every schema not compiled yet, GET routes first (listing and polling are what callers send
   * first), one per turn of the event loop, and only while no request has arrived for QUIET_MS: a caller
   * polling or editing never waits behind a compile (a request that arrives during one waits for that
   * one, a few ms). Stops when the application closes.
   */
  async warm(): Promise<Warmed> {
    const queue = [...this.pending.filter((p) => p.method === 'GET'), ...this.pending.filter((p) => p.method !== 'GET')];
    this.pending = [];
    const warmed: Warmed = { compiled: 0, failed: [] };
    for (const item of queue) {
      await new Promise((resolve) => setImmediate(resolve));
      while (!this.stopped && Date.now() - this.lastRequest < QUIET_MS) await this.pause(QUIET_MS);
      if (this.stopped) break;
      compileInto(item, warmed);
    }
    return warmed;
  }

  /**
   * Compiles the schemas of the given routes (`GET /v2/repos`) now, on this turn: the routes a caller
   * polls while an index is built, so that their first request is not the one that pays for the compile
   * while indexing keeps both cores busy.
   */
  compileNow(routes: readonly string[]): Warmed {
    const wanted = new Set(routes);
    const now = this.pending.filter((p) => wanted.has(`${p.method} ${p.url}`));
    this.pending = this.pending.filter((p) => !wanted.has(`${p.method} ${p.url}`));
    const warmed: Warmed = { compiled: 0, failed: [] };
    for (const item of now) compileInto(item, warmed);
    return warmed;
  }

  stop(): void {
    this.stopped = true;
    this.wake?.();
  }

  /** Waits `ms`, or until stop(): a closed application is not kept alive by its warm-up. */
  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => { this.wake = null; resolve(); }, ms);
      this.wake = () => { clearTimeout(timer); this.wake = null; resolve(); };
    });
  }
}

/** Compiles one pending schema and counts it, or notes its failure (left to its route's request). */
function compileInto(item: Pending, warmed: Warmed): void {
  try {
    item.compile();
    warmed.compiled++;
  } catch (error) {
    warmed.failed.push(`${item.method} ${item.url}: ${(error as Error).message}`);
  }
}
