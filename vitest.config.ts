import { defineConfig } from 'vitest/config';

// Two projects: `fast` (every *.test.ts) and `slow` (*.slow.test.ts: crash harnesses,
// property runs, big fan-outs). `npm test` runs both; `npm run test:fast` only the first.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'fast',
          include: ['test/**/*.test.ts'],
          exclude: ['test/**/*.slow.test.ts'],
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'slow',
          include: ['test/**/*.slow.test.ts'],
          testTimeout: 180_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
