import type { FastifyInstance } from 'fastify';
import type { Engine } from './engine/engine';
import { createApp } from './transport/http/app';
import type { GuardOptions } from './transport/http/guard';

export interface SidecarOptions {
  host: string;
  port: number;
  /** Extra Host names and browser origins to allow, and request limits. */
  guard?: Omit<GuardOptions, 'boundHost'>;
}

export interface Sidecar {
  app: FastifyInstance;
  url: string;
  close(): Promise<void>;
}

/** Listens with the HTTP application on the given address (127.0.0.1 unless told otherwise). */
export async function startSidecar(engine: Engine, options: SidecarOptions): Promise<Sidecar> {
  const app = await createApp(engine, { guard: { ...options.guard, boundHost: options.host } });
  await app.listen({ host: options.host, port: options.port });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  const url = `http://${host}:${port}`;
  return { app, url, close: () => app.close() };
}
