/**
 * A renderer on this process's own browser: `npm start`, the tests, and the render function
 * itself. Built from the configuration: the Chromium from `WEBGATE_CHROMIUM_PATH` or the usual
 * install locations, `WEBGATE_RENDER_CONCURRENCY` pages at once, the fetch limits for every page.
 * Without a Chromium it is a renderer that answers `render_unavailable`, saying how to get one.
 */
import type { WebgateConfig } from "../config";
import type { GuardPolicy } from "../guard/policy";
import { createNetDialer } from "../http/net-dialer";
import type { Resolver } from "../guard/dns-resolver";
import type { Dialer } from "../http/types";
import { BrowserPool } from "./browser-pool";
import { createBrowserRenderer, DEFAULT_RENDER_LIMITS, type RenderLimits } from "./browser-renderer";
import { INSTALL_HINT, createChromiumLauncher, findChromium, type ChromiumLaunchOptions } from "./chromium";
import { unavailableRenderer, type Renderer } from "./renderer";

export interface LocalRenderer extends Renderer {
  /** The browser in use, or undefined when none was found. */
  readonly executable: string | undefined;
  /** Closes the browser (if one was started). */
  close(): Promise<void>;
}

export interface LocalRendererDeps {
  config: WebgateConfig;
  policy: GuardPolicy;
  resolver: Resolver;
  dialer?: Dialer;
  /** Overrides the Chromium found from the configuration (the render function's own build). */
  chromium?: Omit<ChromiumLaunchOptions, "trustedSpkiHashes">;
}

/** The render limits that follow from the fetch limits: the same connect timeout, body limit and redirects. */
export function renderLimitsFor(config: WebgateConfig): RenderLimits {
  return {
    ...DEFAULT_RENDER_LIMITS,
    connectTimeoutMs: config.fetch.connectTimeoutMs,
    maxBodyBytes: config.fetch.maxResponseBytes,
    maxRedirects: config.fetch.maxRedirects,
    // All the page's requests together may move four times what one plain fetch may.
    maxPageBytes: 4 * config.fetch.maxResponseBytes,
  };
}

export function createLocalRenderer(deps: LocalRendererDeps): LocalRenderer {
  const found = deps.chromium?.executablePath ?? findChromium(deps.config.render.chromiumPath);
  if (found === undefined) {
    const none = unavailableRenderer(`Rendering needs a Chromium and none was found. ${INSTALL_HINT}`);
    return { ...none, executable: undefined, close: () => Promise.resolve() };
  }
  const pool = new BrowserPool({
    concurrency: deps.config.render.concurrency,
    launch: createChromiumLauncher({ ...deps.chromium, executablePath: found }),
  });
  const renderer = createBrowserRenderer({
    pool,
    resolver: deps.resolver,
    dialer: deps.dialer ?? createNetDialer(),
    policy: deps.policy,
    limits: renderLimitsFor(deps.config),
  });
  return {
    render: (request, options) => renderer.render(request, options),
    executable: typeof found === "string" ? found : "bundled",
    close: () => pool.close(),
  };
}
