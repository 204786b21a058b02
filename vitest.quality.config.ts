import { defineConfig } from "vitest/config";

/**
 * `npm run test:quality`: the extraction-quality suite over ../shared/extraction-eval (990 pages,
 * about half a minute), kept out of `npm test`'s time budget; .ci/run runs both.
 */
export default defineConfig({
  test: {
    include: ["test/quality/**/*.quality.test.ts"],
    environment: "node",
    testTimeout: 300_000,
  },
});
