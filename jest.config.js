// Jest runs in ESM mode (node --experimental-vm-modules): NestJS 12 ships only ES modules, and Jest loads an ES module
// (imported, or require()d on Node 24) only through vm.SourceTextModule, which Node 24 still hides behind that flag.
// ts-jest transpiles each file on its own (isolatedModules); `npm run typecheck` type-checks.
const tsJest = ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json' }];
const common = {
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': tsJest },
  testEnvironment: 'node',
};
export default {
  projects: [
    { ...common, displayName: 'unit', roots: ['<rootDir>/src'], testMatch: ['**/*.spec.ts'] },
    {
      ...common,
      displayName: 'e2e',
      roots: ['<rootDir>/test'],
      testMatch: ['**/*.e2e-spec.ts'],
    },
  ],
  testTimeout: 30000,
};
