/**
 * A stand-in for a language model helping retrieval: an OpenAI-compatible server on 127.0.0.1
 * (`/v1/models`, `/v1/chat/completions` with `stream: true` and usage) whose answers are fixed.
 *
 * - An expansion prompt ("Question: …" then "Identifiers:") is answered with the identifiers
 *   `EXPANSIONS` holds for that question, one per line, best first: what a model that knows these
 *   frameworks would plausibly name from the list it is given. They were written by hand from the
 *   questions before the runs, and are not always right (see the entries marked "a plausible miss").
 * - A rerank prompt ("Locations:" numbered) is answered with the locations whose name (or, for a file,
 *   one of the names it defines) is among the question's expansions first (in their order), then the others as given.
 *
 * So the measured lift is that of the plumbing with a model as good as these answers, not of any
 * particular model. Every request body is kept in `requests` (what Loupe sends).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export const EXPANSIONS: Record<'hono' | 'flask', Record<string, string[]>> = { hono: {
  'where are signed cookies verified': ['getSignedCookie', 'parseSigned', 'verifySignature'],
  'how is a signed cookie created': ['setSignedCookie', 'serializeSigned', 'generateSignedCookie'],
  'how are middleware functions composed and run in order': ['compose', 'dispatch'],
  'how is the request body parsed': ['parseBody', 'parseFormData'],
  'how is a request validated against a schema': ['validator', 'valid'],
  'how does the CORS middleware decide the allowed origin': ['cors'],
  'where are basic auth credentials checked': ['basicAuth', 'auth'],
  'how is a JWT token verified': ['verify', 'verifyWithJwks', 'jwt'],
  'how is a JWT signed': ['sign', 'signing'],
  'how are query string parameters parsed': ['getQueryParams', 'getQueryParam', 'query', 'queries'],
  'how is the URL path extracted from a request': ['getPath', 'getPathNoStrict'],
  'how is an ETag compared with If-None-Match': ['etagMatches', 'etag'],
  'how does the trie router insert a route': ['insert', 'add'],
  'how are responses compressed with gzip': ['compress'],
  'how is the mime type found from a file name': ['getMimeType'],
  'how is the request body size limited': ['bodyLimit'],
  'how are server-sent events written to the stream': ['writeSSE', 'streamSSE'],
  'how does the timeout middleware abort a slow handler': ['timeout'],
  'how are two strings compared in constant time': ['timingSafeEqual', 'constantTimeEqualString'],
  'how is HTML escaped': ['escapeToBuffer', 'raw'],
  'how does the csrf middleware check the origin': ['csrf'],
  'how is the Accept header parsed': ['parseAccept', 'accepts'],
  'how does the logger middleware print the elapsed time': ['logger', 'time', 'log'],
  'how is a JSON response created': ['json', 'jsonify', 'response'],
  'how does a handler send a redirect': ['redirect'],
  'how are errors thrown by handlers turned into responses': ['onError', 'errorHandler', 'getResponse'],
  'how is data encoded as base64url': ['encodeBase64Url'],
  'how is the content security policy header built': ['getCSPDirectives', 'secureHeaders'],
  'how is a sub application mounted under a path': ['route', 'mount', 'basePath'],
  'how is a sha256 hash computed': ['sha256', 'createHash'],
}, flask: {
  'how does flask dispatch a request to the view function': ['dispatch_request', 'full_dispatch_request'],
  'how is the session cookie signed': ['get_signing_serializer', 'save_session'],
  'how is the session loaded from the cookie': ['open_session'],
  'how are blueprints registered on the app': ['register_blueprint', 'register'],
  'how is a URL built for an endpoint': ['url_for', 'build'],
  'how is configuration loaded from a python file': ['from_pyfile', 'from_file'],
  'how is configuration loaded from environment variables': ['from_prefixed_env', 'from_envvar'],
  'how is the error handler for an exception found': ['_find_error_handler', 'handle_user_exception'],
  'how are templates rendered': ['render_template', '_render'],
  'how is a file sent to the client': ['send_file', 'send_from_directory'],
  'how are flashed messages stored and read back': ['flash', 'get_flashed_messages'],
  "how is a view's return value turned into a response object": ['make_response'],
  // a plausible miss: `jsonify` is a json/__init__.py function the list names, but a model may pick the app's method first
  'how is a JSON response created': ['make_response', 'jsonify'],
  'how does the command line find the application': ['locate_app', 'find_best_app', 'load_app'],
  'how is the request context pushed': ['push', 'request_context'],
  'how does the test client modify the session': ['session_transaction'],
  'how do class based views dispatch by HTTP method': ['dispatch_request', 'as_view'],
  'how is a URL rule added to the app': ['add_url_rule'],
  'how are .env files loaded': ['load_dotenv'],
  'how are tagged JSON values serialized for the session': ['TaggedJSONSerializer', 'tag', 'dumps'],
  'how are teardown functions called after a request': ['do_teardown_request', 'teardown_request'],
  'how are after request functions applied to the response': ['process_response', 'after_request'],
  'how are before request functions run': ['preprocess_request', 'before_request'],
  // a plausible miss: `run_simple` is werkzeug's, not in the list, so only `run` survives the filter
  'how does the development server start': ['run_simple', 'run'],
  'where is the jinja environment created': ['create_jinja_environment'],
  'how are unhandled exceptions turned into a 500 error': ['handle_exception'],
  'how does streaming a response keep the request context': ['stream_with_context'],
  'how does a blueprint register a template filter for the whole app': ['app_template_filter', 'add_app_template_filter'],
  'how is the WSGI application called': ['wsgi_app', '__call__'],
  'how are the routes listed on the command line': ['routes_command'],
} };

export interface FixedModel {
  baseUrl: string;
  /** Every chat request received, parsed: what Loupe sends. */
  requests: { model: string; messages: { role: string; content: string }[] }[];
  close(): Promise<void>;
}

/** The fixed answer to one prompt. */
export function fixedAnswer(messages: { role: string; content: string }[], expansions: Record<string, string[]>): string {
  const user = messages.filter((m) => m.role === 'user').at(-1)?.content ?? '';
  const question = /^Question: (.*)$/m.exec(user)?.[1]?.trim() ?? '';
  const names = expansions[question] ?? [];
  if (user.includes('\nLocations:\n')) {
    // A location is named by its own name, or (a file) by the names it defines.
    const locations = [...user.matchAll(/^(\d+)\. (\S+)(?:.* — defines (.*))?$/gm)].map((m) => ({
      n: Number(m[1]), names: [m[2], ...(m[3] ? m[3].split(', ') : [])].map((x) => x.split('.').pop()!),
    }));
    const first = names.flatMap((n) => locations.filter((l) => l.names.includes(n)).map((l) => l.n));
    return [...new Set([...first, ...locations.map((l) => l.n)])].join(' ');
  }
  return names.join('\n');
}

export async function startFixedModel(expansions: Record<string, string[]>): Promise<FixedModel> {
  const requests: FixedModel['requests'] = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => { raw += c; });
    req.on('end', () => {
      if (req.url === '/v1/models' && req.method === 'GET') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data: [{ id: 'assist-1', object: 'model' }] }));
        return;
      }
      if (req.url !== '/v1/chat/completions' || req.method !== 'POST') { res.writeHead(404).end(); return; }
      const body = JSON.parse(raw) as FixedModel['requests'][number] & { stream?: boolean };
      requests.push(body);
      const text = fixedAnswer(body.messages, expansions);
      const prompt = body.messages.reduce((n, m) => n + Math.ceil(m.content.length / 4), 0);
      const completion = Math.ceil(text.length / 4);
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      const send = (obj: unknown) => res.write(`data: ${JSON.stringify(obj)}\n\n`);
      send({ id: 'f1', object: 'chat.completion.chunk', model: body.model, choices: [{ index: 0, delta: { role: 'assistant', content: text }, finish_reason: null }] });
      send({ id: 'f1', object: 'chat.completion.chunk', model: body.model, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
      send({ id: 'f1', object: 'chat.completion.chunk', model: body.model, choices: [], usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion } });
      res.end('data: [DONE]\n\n');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`, requests,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
