/**
 * The research question set: questions a developer new to a project asks, on two real projects nobody
 * here wrote, each with the place(s) a good answer names first (`symbol` in a file). Written from
 * reading the code before any answer was looked at.
 *
 *   hono   hono@4.13.19 from npm (the whole package: ES module build, CommonJS build, type declarations);
 *          `file` is relative to dist/ and matches the ES module and the CommonJS copy alike
 *   flask  Flask 2.2.2 from Debian's python3-flask 2.2.2-3 (the flask package folder)
 *
 * Every third question of each project is held out (`heldOut`): the answer composer was tuned on the
 * others only, and bench/research-eval.ts reports the two parts apart.
 */
export interface ExpectedPlace {
  /** The symbol's name as the index stores it (a method by its own name). */
  symbol: string;
  file: string;
}

export interface ResearchQuestion {
  corpus: 'hono' | 'flask';
  question: string;
  /** Any of these is a right first line. */
  expect: ExpectedPlace[];
  heldOut?: boolean;
}

const p = (symbol: string, file: string): ExpectedPlace => ({ symbol, file });

const HONO: Omit<ResearchQuestion, 'corpus'>[] = [
  { question: 'where are signed cookies verified', expect: [p('parseSigned', 'utils/cookie.js'), p('verifySignature', 'utils/cookie.js'), p('getSignedCookie', 'helper/cookie/index.js')] },
  { question: 'how is a signed cookie created', expect: [p('serializeSigned', 'utils/cookie.js'), p('generateSignedCookie', 'helper/cookie/index.js'), p('setSignedCookie', 'helper/cookie/index.js'), p('makeSignature', 'utils/cookie.js')] },
  { question: 'how are middleware functions composed and run in order', expect: [p('compose', 'compose.js')] },
  { question: 'how is the request body parsed', expect: [p('parseBody', 'utils/body.js'), p('parseBody', 'request.js')] },
  { question: 'how is a request validated against a schema', expect: [p('validator', 'validator/validator.js')] },
  { question: 'how does the CORS middleware decide the allowed origin', expect: [p('cors', 'middleware/cors/index.js')] },
  { question: 'where are basic auth credentials checked', expect: [p('basicAuth', 'middleware/basic-auth/index.js'), p('auth', 'utils/basic-auth.js')] },
  { question: 'how is a JWT token verified', expect: [p('verify', 'utils/jwt/jwt.js')] },
  { question: 'how is a JWT signed', expect: [p('sign', 'utils/jwt/jwt.js')] },
  { question: 'how are query string parameters parsed', expect: [p('_getQueryParam', 'utils/url.js'), p('getQueryParam', 'utils/url.js'), p('getQueryParams', 'utils/url.js')] },
  { question: 'how is the URL path extracted from a request', expect: [p('getPath', 'utils/url.js'), p('getPathNoStrict', 'utils/url.js')] },
  { question: 'how is an ETag compared with If-None-Match', expect: [p('etagMatches', 'middleware/etag/index.js'), p('etag', 'middleware/etag/index.js')] },
  { question: 'how does the trie router insert a route', expect: [p('insert', 'router/trie-router/node.js'), p('add', 'router/trie-router/router.js')] },
  { question: 'how are responses compressed with gzip', expect: [p('compress', 'middleware/compress/index.js')] },
  { question: 'how is the mime type found from a file name', expect: [p('getMimeType', 'utils/mime.js')] },
  { question: 'how is the request body size limited', expect: [p('bodyLimit', 'middleware/body-limit/index.js')] },
  { question: 'how are server-sent events written to the stream', expect: [p('writeSSE', 'helper/streaming/sse.js'), p('streamSSE', 'helper/streaming/sse.js')] },
  { question: 'how does the timeout middleware abort a slow handler', expect: [p('timeout', 'middleware/timeout/index.js')] },
  { question: 'how are two strings compared in constant time', expect: [p('timingSafeEqual', 'utils/buffer.js'), p('constantTimeEqualString', 'utils/buffer.js'), p('timingSafeEqualString', 'utils/buffer.js')] },
  { question: 'how is HTML escaped', expect: [p('escapeToBuffer', 'utils/html.js')] },
  { question: 'how does the csrf middleware check the origin', expect: [p('csrf', 'middleware/csrf/index.js')] },
  { question: 'how is the Accept header parsed', expect: [p('parseAccept', 'utils/accept.js'), p('accepts', 'helper/accepts/accepts.js')] },
  { question: 'how does the logger middleware print the elapsed time', expect: [p('logger', 'middleware/logger/index.js'), p('log', 'middleware/logger/index.js'), p('time', 'middleware/logger/index.js')] },
  { question: 'how is a JSON response created', expect: [p('json', 'context.js')] },
  { question: 'how does a handler send a redirect', expect: [p('redirect', 'context.js')] },
  { question: 'how are errors thrown by handlers turned into responses', expect: [p('#handleError', 'hono-base.js'), p('errorHandler', 'hono-base.js'), p('onError', 'hono-base.js')] },
  { question: 'how is data encoded as base64url', expect: [p('encodeBase64Url', 'utils/encode.js')] },
  { question: 'how is the content security policy header built', expect: [p('getCSPDirectives', 'middleware/secure-headers/secure-headers.js'), p('secureHeaders', 'middleware/secure-headers/secure-headers.js')] },
  { question: 'how is a sub application mounted under a path', expect: [p('route', 'hono-base.js'), p('mount', 'hono-base.js')] },
  { question: 'how is a sha256 hash computed', expect: [p('sha256', 'utils/crypto.js'), p('createHash', 'utils/crypto.js')] },
];

const FLASK: Omit<ResearchQuestion, 'corpus'>[] = [
  { question: 'how does flask dispatch a request to the view function', expect: [p('dispatch_request', 'app.py'), p('full_dispatch_request', 'app.py')] },
  { question: 'how is the session cookie signed', expect: [p('get_signing_serializer', 'sessions.py'), p('save_session', 'sessions.py')] },
  { question: 'how is the session loaded from the cookie', expect: [p('open_session', 'sessions.py')] },
  { question: 'how are blueprints registered on the app', expect: [p('register_blueprint', 'app.py'), p('register', 'blueprints.py')] },
  { question: 'how is a URL built for an endpoint', expect: [p('url_for', 'app.py'), p('url_for', 'helpers.py')] },
  { question: 'how is configuration loaded from a python file', expect: [p('from_pyfile', 'config.py')] },
  { question: 'how is configuration loaded from environment variables', expect: [p('from_prefixed_env', 'config.py'), p('from_envvar', 'config.py')] },
  { question: 'how is the error handler for an exception found', expect: [p('_find_error_handler', 'app.py')] },
  { question: 'how are templates rendered', expect: [p('render_template', 'templating.py'), p('_render', 'templating.py')] },
  { question: 'how is a file sent to the client', expect: [p('send_file', 'helpers.py'), p('send_from_directory', 'helpers.py')] },
  { question: 'how are flashed messages stored and read back', expect: [p('flash', 'helpers.py'), p('get_flashed_messages', 'helpers.py')] },
  { question: "how is a view's return value turned into a response object", expect: [p('make_response', 'app.py')] },
  { question: 'how is a JSON response created', expect: [p('jsonify', 'json/__init__.py'), p('response', 'json/provider.py')] },
  { question: 'how does the command line find the application', expect: [p('find_best_app', 'cli.py'), p('locate_app', 'cli.py'), p('load_app', 'cli.py')] },
  { question: 'how is the request context pushed', expect: [p('push', 'ctx.py')] },
  { question: 'how does the test client modify the session', expect: [p('session_transaction', 'testing.py')] },
  { question: 'how do class based views dispatch by HTTP method', expect: [p('dispatch_request', 'views.py'), p('MethodView', 'views.py')] },
  { question: 'how is a URL rule added to the app', expect: [p('add_url_rule', 'app.py'), p('add_url_rule', 'scaffold.py')] },
  { question: 'how are .env files loaded', expect: [p('load_dotenv', 'cli.py')] },
  { question: 'how are tagged JSON values serialized for the session', expect: [p('TaggedJSONSerializer', 'json/tag.py'), p('tag', 'json/tag.py'), p('dumps', 'json/tag.py')] },
  { question: 'how are teardown functions called after a request', expect: [p('do_teardown_request', 'app.py')] },
  { question: 'how are after request functions applied to the response', expect: [p('process_response', 'app.py')] },
  { question: 'how are before request functions run', expect: [p('preprocess_request', 'app.py')] },
  { question: 'how does the development server start', expect: [p('run', 'app.py'), p('run_command', 'cli.py')] },
  { question: 'where is the jinja environment created', expect: [p('create_jinja_environment', 'app.py')] },
  { question: 'how are unhandled exceptions turned into a 500 error', expect: [p('handle_exception', 'app.py')] },
  { question: 'how does streaming a response keep the request context', expect: [p('stream_with_context', 'helpers.py')] },
  { question: 'how does a blueprint register a template filter for the whole app', expect: [p('app_template_filter', 'blueprints.py'), p('add_app_template_filter', 'blueprints.py')] },
  { question: 'how is the WSGI application called', expect: [p('wsgi_app', 'app.py'), p('__call__', 'app.py')] },
  { question: 'how are the routes listed on the command line', expect: [p('routes_command', 'cli.py')] },
];

const held = <T extends object>(list: T[], corpus: ResearchQuestion['corpus']): ResearchQuestion[] =>
  list.map((q, i) => ({ ...(q as Omit<ResearchQuestion, 'corpus'>), corpus, heldOut: i % 3 === 2 }));

export const RESEARCH_QUESTIONS: ResearchQuestion[] = [...held(HONO, 'hono'), ...held(FLASK, 'flask')];

/**
 * Whether a path is the expected file: `file` relative to the project's source root, so for hono
 * `dist/<file>` and `dist/cjs/<file>` (the same code built twice), for flask the path itself.
 */
export function samePlace(corpus: ResearchQuestion['corpus'], path: string, file: string): boolean {
  if (corpus === 'hono') return path === `dist/${file}` || path === `dist/cjs/${file}`;
  return path === file;
}
