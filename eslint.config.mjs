import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'test/fixtures/**', 'bench/.corpora/**', 'test-output/**', '.tmp/**'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'off',
      'no-console': 'off',
    },
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
);
