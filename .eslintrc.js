// ESLint 9 in legacy (eslintrc) mode: the design card names .eslintrc.js, which ESLint 10 no longer reads.
// The project is ESM, and Node 20.19+ can require() an ES module, so this file exports its config as ESM.
const config = {
  root: true,
  parser: '@typescript-eslint/parser',
  parserOptions: { project: './tsconfig.json', sourceType: 'module' },
  plugins: ['@typescript-eslint'],
  extends: ['eslint:recommended', 'plugin:@typescript-eslint/recommended'],
  env: { node: true, jest: true, es2023: true },
  ignorePatterns: ['dist/', 'node_modules/', 'var/', 'coverage/', '.eslintrc.js'],
  rules: {
    '@typescript-eslint/no-explicit-any': 'error',
    '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    '@typescript-eslint/no-floating-promises': 'error',
    'no-console': 'error',
    eqeqeq: ['error', 'always', { null: 'ignore' }],
  },
};
export { config as 'module.exports' };
