import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The reliability suite's load part runs only under `npm run test:reliability`
    // (vitest.reliability.config.ts); its fast part runs here too.
    // The extraction-quality suite runs under `npm run test:quality` (vitest.quality.config.ts).
    // The rendering suite (a real Chromium) runs under `npm run test:render` (vitest.render.config.ts).
    exclude: ["**/node_modules/**", "test/**/*.load.test.ts", "test/render/**", "test/**/*.quality.test.ts"],
    globalSetup: ["test/reliability/summary-setup.ts"],
    environment: "node",
    testTimeout: 20_000,
    hookTimeout: 30_000,
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true" },
    coverage: {
      provider: "v8",
      include: ["shared/guard/**/*.ts"],
      thresholds: { "shared/guard/**/*.ts": { branches: 100, functions: 100, lines: 100, statements: 100 } },
    },
  },
});
