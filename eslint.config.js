import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

const WASM_CRYPTO_IMPORT = {
  name: '@polkadot/wasm-crypto',
  message: 'use src/daemon/crypto/wasm-crypto.ts, which calls it through callWasm',
};

export default tseslint.config(
  {
    ignores: [
      'dist/',
      'node_modules/',
      'coverage/',
      'man/',
      'test/fixtures/hardhat-project/artifacts/',
      'test/fixtures/hardhat-project/cache/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        setImmediate: 'readonly',
        URL: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    // A bare call into the WebAssembly crypto that traps breaks the module for good
    // (docs/architecture.md, Rules): only these two modules may reach it.
    files: ['src/**/*.ts'],
    ignores: ['src/daemon/crypto/wasm-call.ts', 'src/daemon/crypto/wasm-crypto.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: [WASM_CRYPTO_IMPORT] }] },
  },
  {
    // Layering (docs/architecture.md): the CLI, the client and what they share with the daemon
    // import nothing of the daemon. This block replaces the one above for these files, so it
    // repeats its restriction.
    files: ['src/{commands,cli,client,hooks,shared}/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [WASM_CRYPTO_IMPORT],
          patterns: [
            {
              group: ['**/daemon/**'],
              message:
                'the CLI, the client and src/shared import nothing from src/daemon/: move what both sides need to src/shared/',
            },
          ],
        },
      ],
    },
  },
  {
    // The launcher is CommonJS (bin/package.json), so a call never starts the ES module loader.
    files: ['bin/run.js'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { require: 'readonly', __dirname: 'readonly' },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // The Hardhat fixture is a user's project: a CommonJS config and mocha test files.
    files: ['test/fixtures/hardhat-project/**/*.{js,cjs}'],
    languageOptions: {
      globals: {
        require: 'readonly',
        module: 'writable',
        describe: 'readonly',
        it: 'readonly',
        before: 'readonly',
        beforeEach: 'readonly',
        afterEach: 'readonly',
      },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
