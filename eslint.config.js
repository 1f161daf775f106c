import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

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
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: '@polkadot/wasm-crypto',
              message: 'use src/daemon/crypto/wasm-crypto.ts, which calls it through callWasm',
            },
          ],
        },
      ],
    },
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
