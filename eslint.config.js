// ESLint: typescript-eslint's strict, type-checked rules for the product (src/), its recommended ones for
// tests, bench and tools. Layout is Prettier's (.prettierrc.json): no rule here is about it. Each rule
// turned off or tuned says why.
import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'coverage/', 'test-results/', 'data/', 'tools/*/node_modules/', '**/.tmp/', 'test/browser/ext-apps-host/'] },
  eslint.configs.recommended,
  {
    files: ['src/**/*.ts'],
    ignores: ['src/**/*.test.ts'],
    extends: [...tseslint.configs.strictTypeChecked],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // With noUncheckedIndexedAccess, `!` says "this index exists" where the code has just made sure of it.
      '@typescript-eslint/no-non-null-assertion': 'off',
      // Numbers and booleans read well in messages; objects and undefined are still refused.
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true }],
      // `if (bad) return refuse(...)` in a function that returns nothing is the code's way to say "do this and stop".
      '@typescript-eslint/no-confusing-void-expression': 'off',
      // Kysely's expression builder is destructured by design (`({ not, exists }) => ...`), and the ports
      // are objects of closures, not classes that rely on `this`.
      '@typescript-eslint/unbound-method': 'off',
      // Port implementations are async so that a throw is a rejection, whether or not they await.
      '@typescript-eslint/require-await': 'off',
      // An error from a callback is passed on as it came, whatever its type.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingAny: true, allowThrowingUnknown: true }],
    },
  },
  {
    // Kysely's migrations are written against Kysely<any> by design: a migration must not depend on today's schema.
    files: ['src/adapters/sql/migrations.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['src/**/*.test.ts', 'test/**/*.{ts,mts}', 'bench/**/*.{ts,mts}', '*.ts'],
    extends: [...tseslint.configs.recommended],
    rules: {
      // Tests read JSON bodies as `any`, as a client would (test/support/fetch-json.d.ts).
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  {
    files: ['**/*.{ts,mts}'],
    rules: {
      // `_`-named bindings are there to be ignored (a rest sibling, a loop that only counts).
      '@typescript-eslint/no-unused-vars': ['error', { varsIgnorePattern: '^_', argsIgnorePattern: '^_', ignoreRestSiblings: true }],
      // Control characters are matched on purpose: they are what the validators refuse and the tests send.
      'no-control-regex': 'off',
    },
  },
  {
    files: ['**/*.{js,mjs}'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly', Buffer: 'readonly', setTimeout: 'readonly', performance: 'readonly', fetch: 'readonly' } },
  },
);
