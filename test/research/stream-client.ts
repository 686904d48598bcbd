/** A real streaming client: undici over a listening socket, reading NDJSON line by line as it arrives. */
import { request } from 'undici';

export interface Line { at: number; event: any }

export async function openStream(url: string, key: string, body: unknown, headers: Record<string, string> = {}) {
  const started = performance.now();
  const controller = new AbortController();
  const res = await request(url, {
    method: 'POST', signal: controller.signal,
    headers: { 'content-type': 'application/json', accept: 'application/x-ndjson', 'x-api-key': key, ...headers },
    body: JSON.stringify(body),
  });
  async function* lines(): AsyncGenerator<Line> {
    let buffered = '';
    for await (const chunk of res.body) {
      buffered += (chunk as Buffer).toString('utf8');
      let cut: number;
      while ((cut = buffered.indexOf('\n')) >= 0) {
        const text = buffered.slice(0, cut);
        buffered = buffered.slice(cut + 1);
        yield { at: performance.now() - started, event: JSON.parse(text) };
      }
    }
    if (buffered.trim()) throw new Error(`the stream ended inside a line: ${buffered.slice(0, 80)}`);
  }
  return { res, lines, abort: () => controller.abort(), started };
}

export async function readAll(url: string, key: string, body: unknown, headers?: Record<string, string>) {
  const s = await openStream(url, key, body, headers);
  const out: Line[] = [];
  if (s.res.statusCode !== 200) return { status: s.res.statusCode, headers: s.res.headers, json: await s.res.body.json() as any, lines: out };
  for await (const line of s.lines()) out.push(line);
  return { status: s.res.statusCode, headers: s.res.headers, json: null, lines: out };
}
