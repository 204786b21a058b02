/**
 * Shared set-up of the rendering suites: one world and one browser pool per test file, and a
 * notice (instead of a silent pass) where no Chromium is installed.
 */
import { afterAll, beforeAll, describe } from "vitest";
import { resolvePolicy, type GuardPolicy } from "../../shared/guard/policy";
import { BrowserPool } from "../../shared/render/browser-pool";
import { createBrowserRenderer, type RenderLimits } from "../../shared/render/browser-renderer";
import { createChromiumLauncher } from "../../shared/render/chromium";
import type { Renderer } from "../../shared/render/renderer";
import { TEST_CHROMIUM, TEST_SPKI_HASH, startRenderWorld, type RenderWorld } from "./render-world";

export interface RenderSuite {
  world: RenderWorld;
  pool: BrowserPool;
  /** A renderer over the suite's pool and world; ports of the canaries are allowed by the URL policy so that only the address policy can refuse them. */
  renderer(options?: { limits?: Partial<RenderLimits>; policy?: Partial<GuardPolicy> }): Renderer;
}

/** `describe` when a Chromium is installed; otherwise a skipped block and one notice line. */
export const describeWithBrowser = describe.skipIf(TEST_CHROMIUM === undefined);
if (!TEST_CHROMIUM) {
  process.stderr.write(
    "NOTICE: no Chromium found (set WEBGATE_CHROMIUM_PATH or apt-get install chromium): the rendering suite is skipped.\n",
  );
}

export function useRenderSuite(dns: Record<string, string[][]> = {}, concurrency = 2): RenderSuite {
  const suite = {} as RenderSuite;
  beforeAll(async () => {
    suite.world = await startRenderWorld(dns);
    suite.pool = new BrowserPool({
      concurrency,
      launch: createChromiumLauncher({ executablePath: TEST_CHROMIUM!, trustedSpkiHashes: [TEST_SPKI_HASH] }),
    });
    suite.renderer = (options = {}) =>
      createBrowserRenderer({
        pool: suite.pool,
        resolver: suite.world.resolver,
        dialer: suite.world.dialer,
        policy: resolvePolicy({
          allowedPorts: [80, 443, 8443, ...Object.values(suite.world.canaries).map((c) => c.port)],
          ...options.policy,
        }),
        limits: options.limits,
      });
  });
  afterAll(async () => {
    await suite.pool?.close();
    await suite.world?.close();
  });
  return suite;
}
