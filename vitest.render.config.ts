import { defineConfig } from "vitest/config";

/**
 * `npm run test:render`: the rendering suite, with a real headless Chromium (Debian's
 * `chromium` package, or WEBGATE_CHROMIUM_PATH). One file at a time and one browser per file:
 * each browser takes a few hundred megabytes and a core while it starts.
 */
export default defineConfig({
  test: {
    include: ["test/render/**/*.test.ts"],
    environment: "node",
    pool: "forks",
    fileParallelism: false,
    testTimeout: 90_000,
    hookTimeout: 60_000,
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true" },
  },
});
