import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/fixtures/**', 'test/helpers/**', 'node_modules/**'],
    testTimeout: 180_000,
    hookTimeout: 120_000,
    // Both cores: the default leaves one idle on a 2-core CI machine, and the fuzz files are long.
    maxWorkers: 2,
  },
});
