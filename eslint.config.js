// Lint: typescript-eslint's recommended rules over the server, the console and the tests
// (`npm run lint`, part of `npm test`). Not type-checked, so it stays fast.
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'console/dist/**',
      'coverage/**',
      'node_modules/**',
      'console/src/api/schema.d.ts',
      'bench/results/**',
    ],
  },
  ...tseslint.configs.recommended,
  {
    rules: {
      // A leading underscore marks a name kept on purpose: a parameter an interface requires, or a
      // field taken out of an object so that the rest can be passed on.
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          ignoreRestSiblings: true,
        },
      ],
    },
  },
  {
    // Tests read replies whose shape they are asserting and build hostile inputs on purpose: `any`
    // is allowed there (and only there; production code narrows `unknown` or declares a shape).
    files: ['test/**', '**/*.test.ts', '**/*.test.tsx'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
