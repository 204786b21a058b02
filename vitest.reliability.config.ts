import { defineConfig } from "vitest/config";

/**
 * `npm run test:reliability`: the whole reliability suite (fast part and load part) and its
 * summary. `--expose-gc` lets the memory rounds measure the heap after a full collection.
 */
export default defineConfig({
  test: {
    include: ["test/reliability/**/*.test.ts"],
    globalSetup: ["test/reliability/summary-setup.ts"],
    environment: "node",
    pool: "forks",
    // One file at a time: the load figures then measure the server, not the other files
    // competing for the same two cores.
    fileParallelism: false,
    execArgv: ["--expose-gc"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true" },
  },
});
