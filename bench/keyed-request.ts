import http from 'node:http';

/** One keyed request on a keep-alive agent: status, client-side time and body (bench/team-load.ts, bench/pg-search.ts). */
export function request(agent: http.Agent, base: string, path: string, key: string, method = 'GET', body?: string): Promise<{ status: number; ms: number; body: string }> {
  const url = new URL(path, base);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.request({ agent, host: url.hostname, port: url.port, path: url.pathname + url.search, method,
      headers: { 'x-api-key': key, ...(body ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } : {}) } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => { text += d; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}
