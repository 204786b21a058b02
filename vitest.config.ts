import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

/**
 * `npm test`'s vitest (and `npm run test:unit`). Two projects: the infrastructure tests run
 * without isolation, so the files a worker runs share one module registry and with it the
 * memoized synths of test/infra/synth.ts (each `cdk synth` of the stack costs seconds of CPU and
 * six files ask for the same ones); everything else runs isolated, one module registry per file.
 */
export default defineConfig({
  test: {
    environment: "node",
    testTimeout: 20_000,
    hookTimeout: 30_000,
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true" },
    // vitest's default is one worker fewer than the cores, which is one worker on 2 cores. Most
    // files spend much of their time waiting on loopback sockets and timers, so a worker per core
    // keeps both cores busy (type-check and lint run beside them at the start, see test-all.ts).
    maxWorkers: Math.max(2, availableParallelism()),
    coverage: {
      provider: "v8",
      include: ["shared/guard/**/*.ts", "shared/http/**/*.ts"],
      thresholds: {
        "shared/guard/!(dns-resolver).ts": { branches: 100, functions: 100, lines: 100, statements: 100 },
        // The c-ares adapter: every line and function; the branches left are c-ares behaviours a
        // loopback DNS server cannot bring about (a fulfilled empty answer, a CNAME query
        // cancelled between its answer and the abort check).
        "shared/guard/dns-resolver.ts": { branches: 89, functions: 100, lines: 100, statements: 97 },
        // The HTTP clients, the keep-alive pool and the dialer: every line and function; the
        // branches left are socket races (a Happy Eyeballs attempt that connects after another
        // won) and defaults Node never leaves to them (a socket error without a code, a header
        // whose value is undefined, a non-Error thrown by http.request).
        "shared/http/**/*.ts": { branches: 95, functions: 100, lines: 100, statements: 98 },
      },
    },
    projects: [
      {
        extends: true,
        test: {
          name: "main",
          include: ["test/**/*.test.ts"],
          // The reliability suite's load part runs only under `npm run test:reliability`
          // (vitest.reliability.config.ts); its fast part runs here too.
          // The rendering suite (a real Chromium) runs under `npm run test:render` (vitest.render.config.ts).
          exclude: ["**/node_modules/**", "test/**/*.load.test.ts", "test/render/**", "test/infra/**", "test/**/*.quality.test.ts"],
          globalSetup: ["test/reliability/summary-setup.ts"],
        },
      },
      {
        extends: true,
        test: { name: "infra", include: ["test/infra/**/*.test.ts"], isolate: false },
      },
    ],
  },
});
