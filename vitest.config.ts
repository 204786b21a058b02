import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The reliability suite's load part runs only under `npm run test:reliability`
    // (vitest.reliability.config.ts); its fast part runs here too.
    // The rendering suite (a real Chromium) runs under `npm run test:render` (vitest.render.config.ts).
    exclude: ["**/node_modules/**", "test/**/*.load.test.ts", "test/render/**"],
    globalSetup: ["test/reliability/summary-setup.ts"],
    environment: "node",
    testTimeout: 20_000,
    hookTimeout: 30_000,
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true" },
    coverage: {
      provider: "v8",
      include: ["shared/guard/**/*.ts", "shared/http/**/*.ts"],
      thresholds: {
        "shared/guard/**/*.ts": { branches: 100, functions: 100, lines: 100, statements: 100 },
        // The HTTP clients and the dialer: every line; the branches left are socket races
        // (an attempt that connects after another won, a TLS error without a code).
        "shared/http/**/*.ts": { branches: 89, functions: 96, lines: 99, statements: 96 },
      },
    },
  },
});
