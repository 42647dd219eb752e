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
  // The arrows between the rooms (docs/ARCHITECTURE.md, "Import boundaries"): the kernel knows no profiler, security
  // or shop; the profiler no shop; the data layer and the users table no feature.
  overrides: [
    {
      files: ['src/lifecycle/**/*.ts'],
      rules: {
        'no-restricted-imports': [
          'error',
          {
            patterns: [
              boundary(['profiler', 'shop', 'security', 'session', 'database', 'users'], 'The kernel (src/lifecycle)'),
            ],
          },
        ],
      },
    },
    {
      files: ['src/profiler/**/*.ts'],
      rules: { 'no-restricted-imports': ['error', { patterns: [boundary(['shop'], 'The profiler')] }] },
    },
    {
      files: ['src/database/**/*.ts', 'src/users/**/*.ts'],
      rules: { 'no-restricted-imports': ['error', { patterns: [boundary(['shop'], 'The data layer')] }] },
    },
  ],
};

/** A no-restricted-imports pattern refusing imports from these top-level folders of src/. */
function boundary(rooms, who) {
  return {
    group: rooms.map((room) => `**/${room}/**`),
    message: `${who} must not import ${rooms.join(', ')} code (see docs/ARCHITECTURE.md).`,
  };
}
export { config as 'module.exports' };
