import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'test/fixtures/**', 'bench/.corpora/**', 'test-output/**', '.tmp/**'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      'no-console': 'off',
    },
  },
  {
    // Tests and benchmarks read JSON answers without a schema of their own; their assertions are the types.
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // Architecture invariant: only client/ talks to VS Code. The engine runs the same headless.
    files: ['server/**/*.ts', 'protocol/**/*.ts', 'webview/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: [{ name: 'vscode', message: 'Only client/ may import vscode.' }] }],
    },
  },
  {
    // The language server's stdout may carry LSP; log through the injected logger instead.
    files: ['server/engine/**/*.ts', 'server/transport/**/*.ts', 'server/main.ts', 'server/host.ts', 'server/settings.ts'],
    rules: {
      'no-console': 'error',
      'no-restricted-properties': ['error', { object: 'process', property: 'stdout', message: 'Use the injected logger.' }],
    },
  },
  {
    // Every engine failure has a code (errors.ts, docs/errors.md): transports map codes, not messages.
    files: ['server/engine/**/*.ts'],
    rules: {
      'no-restricted-syntax': ['error', {
        selector: "NewExpression[callee.name='Error']",
        message: 'Engine failures are coded: throw a LoupeError with a code from server/engine/errors.ts.',
      }, {
        // A generator function made per call gives its generators a map of their own, in V8's old generation:
        // garbage on every call that only a full collection takes back (ARCHITECTURE.md, the account side's seam).
        selector: 'FunctionExpression[generator=true]:not(MethodDefinition > FunctionExpression):not(Property[method=true] > FunctionExpression)',
        message: 'Write the work as a generator method and hand it over through an arrow: () => this.someWork(…).',
      }],
    },
  },
);
