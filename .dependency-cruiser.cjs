/**
 * The direction of the arrows (ARCHITECTURE.md), checked by `npm run lint`:
 *   transport → engine (its operations), never a transport's neighbour or a store;
 *   engine → nothing above it: no transport, no host, no editor or webview wire types;
 *   protocol, client and webview stay on their side; no cycles anywhere.
 * test/tooling/fences.test.ts proves each rule bites on a wrong arrow.
 */
module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      severity: 'error',
      comment: 'A cycle makes two modules one: neither can change, load or be tested alone. Cycles through type-only imports do not exist at run time and are allowed.',
      from: {},
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    {
      name: 'transport-not-to-store',
      severity: 'error',
      comment: 'Transports call operations; SQL and the stores stay inside the engine.',
      from: { path: '^server/transport/' },
      to: { path: '^server/engine/store/' },
    },
    {
      name: 'transport-only-to-operations',
      severity: 'error',
      comment: 'The engine\'s public surface is its operations (server/engine/operations), its coded errors, the logger and the domain records; services, queue and indexer are its own.',
      from: { path: '^server/transport/' },
      to: { path: '^server/engine/', pathNot: '^server/engine/(operations/|errors\\.ts$|log\\.ts$|types\\.ts$)' },
    },
    {
      name: 'transport-not-to-transport',
      severity: 'error',
      comment: 'One transport does not reach into another (A2A and MCP call HTTP through inject, not its modules); transport/common is shared.',
      from: { path: '^server/transport/([^/]+)/' },
      to: { path: '^server/transport/', pathNot: ['^server/transport/$1/', '^server/transport/common/'] },
    },
    {
      name: 'transport-common-is-a-leaf',
      severity: 'error',
      from: { path: '^server/transport/common/' },
      to: { path: '^server/transport/', pathNot: '^server/transport/common/' },
    },
    {
      name: 'engine-core-stays-inside',
      severity: 'error',
      comment: 'Stores, queue, indexer and services live in EngineCore; outside the engine only engine.ts (operations, logger, close) is seen. Tests and benchmarks may reach inside.',
      from: { path: '^server/', pathNot: '^server/engine/engine\\.ts$' },
      to: { path: '^server/engine/core\\.ts$' },
    },
    {
      name: 'engine-not-to-transport-or-host',
      severity: 'error',
      comment: 'The engine knows nothing of HTTP, LSP, A2A or how it was started.',
      from: { path: '^server/engine/' },
      to: { path: ['^server/transport/', '^server/(host|settings|cli|mcp-cli|main)\\.ts$'] },
    },
    {
      name: 'engine-not-to-editor-wire',
      severity: 'error',
      comment: 'The engine speaks the API (protocol/api); the editor\'s and the panel\'s shapes are the language server\'s to convert.',
      from: { path: '^server/engine/' },
      to: { path: '^protocol/(lsp|webview|settings)\\.ts$' },
    },
    {
      name: 'engine-uses-api-types-only',
      severity: 'error',
      comment: 'Operations are typed with the API\'s schemas (import type); validation and OpenAPI stay in the transports.',
      from: { path: '^server/engine/' },
      to: { path: '^protocol/api/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'only-the-host-mounts-transports',
      severity: 'error',
      comment: 'Transports are composed in one place: server/host.ts with its settings (and main.ts, which starts the language server).',
      from: { path: '^server/', pathNot: ['^server/transport/', '^server/(host|settings|main|cli)\\.ts$'] },
      to: { path: '^server/transport/' },
    },
    {
      name: 'protocol-stands-alone',
      severity: 'error',
      comment: 'Wire types are shared by server, client and webview, so they import none of them.',
      from: { path: '^protocol/' },
      to: { path: '^(server|client|webview)/' },
    },
    {
      name: 'client-and-webview-through-protocol',
      severity: 'error',
      comment: 'The extension and the panel talk to the server over LSP and messages, never by importing it.',
      from: { path: '^(client|webview)/' },
      to: { path: '^server/' },
    },
    {
      name: 'webview-not-to-client',
      severity: 'error',
      from: { path: '^webview/' },
      to: { path: '^client/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|node_modules|test/fixtures|bench/\\.corpora|\\.tmp|test-output)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.mjs', '.js', '.json'] },
  },
};
