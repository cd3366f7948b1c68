// Lint: typescript-eslint's recommended rules over the server, the console and the tests.
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'console/dist/**', 'coverage/**', 'node_modules/**', 'console/src/api/schema.d.ts', 'bench/results/**'] },
  ...tseslint.configs.recommended,
);
