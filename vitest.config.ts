import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/fixtures/**', 'test/helpers/**', 'node_modules/**'],
    testTimeout: 180_000,
    hookTimeout: 120_000,
  },
});
