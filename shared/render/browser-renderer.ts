/**
 * Rendering one page in the shared browser, held to the guard.
 *
 * Each page gets a browser context of its own (no cookies, cache or service workers shared with
 * any other page) whose only network is a guarded proxy of its own ({@link startGuardedProxy}):
 * every request of the page — document, scripts, XHR/fetch, WebSocket, every redirect hop — is
 * checked there, and the page's byte and connection budgets are counted there. In the page
 * itself, requests that need no network for the text are never made (images, media, fonts),
 * schemes other than http(s) are refused, window.open and WebRTC are removed, service workers
 * are bypassed and cannot register, dialogs are dismissed, downloads are denied, popups closed,
 * and the top-level document may navigate only a bounded number of times.
 *
 * The DOM is read after the network has been idle for {@link IDLE_MS} or after `waitMs`,
 * whichever comes first (the second is marked `truncated: "render_wait"`), with the page's
 * scripts stopped first so a page that keeps its main thread busy cannot hold the read hostage.
 */
import { TargetType, type Browser, type BrowserContext, type CDPSession, type HTTPRequest, type HTTPResponse, type Page } from "puppeteer-core";
import { WebgateError, isWebgateError } from "../errors";
import { WEBGATE_USER_AGENT } from "../guard/guarded-get";
import { withoutLocalhost, type GuardPolicy } from "../guard/policy";
import { requestPolicy } from "../guard/url-policy";
import type { Resolver } from "../guard/dns-resolver";
import type { Dialer } from "../http/types";
import type { BrowserPool } from "./browser-pool";
import { authorityOf, startGuardedProxy, type GuardedProxy } from "./guarded-proxy";
import type { RenderRequest, RenderTruncation, RenderedPage, Renderer } from "./renderer";
import type { RedirectHop } from "../snapshot/snapshot-meta";

export interface RenderLimits {
  /** Each DNS lookup and upstream connect of the proxy. */
  connectTimeoutMs: number;
  /** Bytes all the page's requests may move through the proxy together. */
  maxPageBytes: number;
  /** Upstream connections the page may open. */
  maxConnections: number;
  /** Top-level document loads: the first and every later navigation of the page itself. */
  maxNavigations: number;
  /** HTTP redirects of one top-level navigation, as for a plain fetch. */
  maxRedirects: number;
  /** Largest serialized DOM handed on. */
  maxBodyBytes: number;
}

export const DEFAULT_RENDER_LIMITS: RenderLimits = {
  connectTimeoutMs: 5_000,
  maxPageBytes: 20_971_520,
  maxConnections: 64,
  maxNavigations: 5,
  maxRedirects: 5,
  maxBodyBytes: 5_242_880,
};

export interface BrowserRendererDeps {
  pool: BrowserPool;
  resolver: Resolver;
  dialer: Dialer;
  policy: GuardPolicy;
  limits?: Partial<RenderLimits>;
}

/** Network quiet for this long counts as settled (Puppeteer's networkidle0 rule). */
export const IDLE_MS = 500;
/** Each step of reading the DOM at the end; past it the page counts as not rendered. */
const SNAPSHOT_STEP_MS = 10_000;
/** Time for closing a page's context before it is abandoned. */
const CLOSE_MS = 3_000;

// Resource types that never carry text: never requested at all. (Images are also switched off
// in Blink itself, see chromiumArgs.)
const SKIPPED_TYPES = new Set(["image", "media", "font", "texttrack", "manifest", "ping", "cspviolationreport", "prefetch", "signedexchange"]);

/**
 * Runs in every frame before the page's own scripts. Removes what could leave the proxy or
 * outlive the page: window.open, WebRTC (UDP), service-worker registration. Written as a string:
 * it runs in the page, not in Node.
 */
export const PAGE_LOCKDOWN_SCRIPT = `(() => {
  const define = (target, name, value) => {
    try { Object.defineProperty(target, name, { value, writable: false, configurable: false }); } catch (_) {}
  };
  define(window, "open", () => null);
  for (const name of ["RTCPeerConnection", "webkitRTCPeerConnection", "RTCDataChannel", "RTCSessionDescription", "RTCIceCandidate"]) {
    try { delete window[name]; } catch (_) {}
    define(window, name, undefined);
  }
  try {
    if (navigator.serviceWorker) {
      define(navigator.serviceWorker, "register", () => Promise.reject(new DOMException("Service workers are disabled.", "SecurityError")));
    }
  } catch (_) {}
})();`;

export function createBrowserRenderer(deps: BrowserRendererDeps): Renderer {
  const limits: RenderLimits = { ...DEFAULT_RENDER_LIMITS, ...deps.limits };
  return {
    render(request, options = {}) {
      const own = AbortSignal.timeout(request.timeoutMs + request.waitMs + 2 * SNAPSHOT_STEP_MS);
      // The request's deadline too: the wait for a page slot and the proxy's lookups, dials and
      // tunnels end with it, so a render never outlives the answer it was for.
      const budget = options.signal === undefined ? own : AbortSignal.any([own, options.signal]);
      return deps.pool.use(budget, (browser) => renderInBrowser(browser, request, deps, limits, budget));
    },
  };
}

interface MainFrameState {
  /** The last top-level request's URL and its place in its redirect chain. */
  url: string;
  hop: number;
  navigations: number;
  response: HTTPResponse | undefined;
  redirectLimitHit: boolean;
  /**
   * The navigation past the limit, held (neither continued nor aborted) until the DOM has been
   * read: aborting it would replace the document with the browser's error page.
   */
  held: HTTPRequest | undefined;
}

async function renderInBrowser(browser: Browser, request: RenderRequest, deps: BrowserRendererDeps, limits: RenderLimits, budget: AbortSignal): Promise<RenderedPage> {
  const started = performance.now();
  const pageDone = new AbortController();
  const signal = AbortSignal.any([budget, pageDone.signal]);
  const proxy = await startGuardedProxy({
    resolver: deps.resolver,
    dialer: deps.dialer,
    // The dev switch covers a render only when the page itself is on this machine: a public
    // page's scripts and redirects never reach loopback (see requestPolicy).
    policy: renderPolicy(request.url, deps.policy),
    ...homeOf(request.url),
    connectTimeoutMs: limits.connectTimeoutMs,
    maxBytes: limits.maxPageBytes,
    maxConnections: limits.maxConnections,
    signal,
  });
  let context: BrowserContext | undefined;
  try {
    context = await browser.createBrowserContext({
      proxyServer: proxy.url,
      proxyBypassList: ["<-loopback>"],
      downloadBehavior: { policy: "deny" },
    });
    const page = await context.newPage();
    // Popups are blocked and window.open removed; any other page that appears is closed.
    context.on("targetcreated", (target) => {
      if (target.type() !== TargetType.PAGE) return;
      void target
        .page()
        .then((other) => (other && other !== page ? other.close() : undefined))
        .catch(() => undefined);
    });
    return await renderOn(page, request, proxy, limits, started);
  } finally {
    pageDone.abort();
    if (context) await settleWithin(context.close(), CLOSE_MS);
    await proxy.close();
  }
}

async function renderOn(page: Page, request: RenderRequest, proxy: GuardedProxy, limits: RenderLimits, started: number): Promise<RenderedPage> {
  // A session of our own with Runtime enabled: Runtime.terminateExecution is then handled off
  // the page's main thread, so it can stop a script that never yields (see readDom).
  const cdp = await page.createCDPSession();
  await cdp.send("Runtime.enable");
  await page.setBypassServiceWorker(true);
  await page.setUserAgent(`${await page.browser().userAgent()} ${WEBGATE_USER_AGENT}`);
  await page.evaluateOnNewDocument(PAGE_LOCKDOWN_SCRIPT);
  page.on("dialog", (dialog) => void dialog.dismiss().catch(() => undefined));

  let stop: (reason: RenderTruncation) => void = () => undefined;
  const stopped = new Promise<RenderTruncation>((resolve) => {
    stop = resolve;
  });
  proxy.onExhausted((budget) => stop(budget === "bytes" ? "render_bytes" : "render_connections"));

  const main: MainFrameState = { url: request.url, hop: 0, navigations: 0, response: undefined, redirectLimitHit: false, held: undefined };
  await page.setRequestInterception(true);
  page.on("request", (req) => void decide(req, page, main, limits, stop));
  page.on("response", (response) => {
    const req = response.request();
    if (req.isNavigationRequest() && req.frame() === page.mainFrame() && !isRedirect(response.status())) main.response = response;
  });

  let truncated: RenderTruncation | null = null;
  // A budget or the navigation limit can run out before the first document finished loading.
  const loaded = await Promise.race([
    page.goto(request.url, { waitUntil: "domcontentloaded", timeout: request.timeoutMs }).then(
      () => ({ ok: true as const }),
      (error: unknown) => ({ ok: false as const, error }),
    ),
    stopped.then((reason) => ({ ok: true as const, reason })),
  ]);
  if (!loaded.ok) {
    const refusal = navigationFailure(loaded.error, main, proxy);
    if (refusal) throw refusal;
    // The document arrived but did not finish loading in time: what it has is what it has.
    truncated = "render_wait";
  } else if ("reason" in loaded) {
    truncated = loaded.reason;
  }
  if (truncated === null) {
    truncated = await Promise.race([
      page.waitForNetworkIdle({ idleTime: IDLE_MS, timeout: Math.max(1, request.waitMs) }).then(
        () => null,
        () => "render_wait" as const,
      ),
      stopped,
    ]);
  }
  if (proxy.exhausted !== undefined) truncated = proxy.exhausted === "bytes" ? "render_bytes" : "render_connections";

  const refusal = topLevelRefusal(page, main, proxy);
  if (refusal) throw refusal;
  const response = main.response;
  if (response === undefined) throw new WebgateError("upstream_timeout", "The page did not load within the time limit.");
  const html = await readDom(cdp);
  void main.held?.abort("blockedbyclient").catch(() => undefined);
  const contentType = response.headers()["content-type"] ?? "";
  const isHtml = /^\s*(?:text\/html|application\/xhtml\+xml)\s*(?:;|$)/i.test(contentType) || contentType.trim() === "";
  let body: Buffer = Buffer.from(html, "utf8");
  let rendered = true;
  let type = "text/html; charset=utf-8";
  if (!isHtml) {
    // Not a document the browser built (JSON, text, XML): the origin's bytes, as a plain fetch
    // would have them, when the browser still holds them.
    const raw = await settleWithin(response.buffer(), SNAPSHOT_STEP_MS);
    if (raw !== undefined) {
      body = raw;
      rendered = false;
      type = contentType;
    }
  }
  if (body.length > limits.maxBodyBytes) {
    throw new WebgateError("upstream_too_large", `The rendered page is larger than the limit of ${limits.maxBodyBytes} bytes.`, {
      details: { limit_bytes: limits.maxBodyBytes },
    });
  }
  return {
    url: request.url,
    finalUrl: page.url(),
    redirects: redirectsOf(response),
    status: response.status(),
    contentType: type,
    body,
    rendered,
    truncated,
    proxyBytes: proxy.bytes,
    elapsedMs: Math.round(performance.now() - started),
  };
}

async function decide(req: HTTPRequest, page: Page, main: MainFrameState, limits: RenderLimits, stop: (reason: RenderTruncation) => void): Promise<void> {
  const url = req.url();
  const scheme = url.slice(0, url.indexOf(":") + 1).toLowerCase();
  const navigation = req.isNavigationRequest();
  const topLevel = navigation && req.frame() === page.mainFrame();
  let allowed: boolean;
  if (scheme !== "http:" && scheme !== "https:") {
    // data: and blob: subresources never touch the network; file:, chrome: and the rest, and
    // any non-http navigation, are refused.
    allowed = !navigation && (scheme === "data:" || scheme === "blob:");
  } else if (SKIPPED_TYPES.has(req.resourceType())) {
    allowed = false;
  } else if (topLevel) {
    const hop = req.redirectChain().length;
    if (hop === 0 && main.navigations >= limits.maxNavigations) {
      if (main.held === undefined) main.held = req;
      else await req.abort("blockedbyclient").catch(() => undefined);
      stop("render_navigations");
      return;
    }
    if (hop === 0) main.navigations += 1;
    main.url = url;
    main.hop = hop;
    main.redirectLimitHit = hop > limits.maxRedirects;
    allowed = !main.redirectLimitHit;
  } else {
    allowed = true;
  }
  // The request may already be gone (its frame detached); that is not an error of the render.
  if (allowed) await req.continue().catch(() => undefined);
  else await req.abort("blockedbyclient").catch(() => undefined);
}

/**
 * The error for a top-level navigation that failed, or undefined when what arrived is to be read
 * as it is (the document came but did not finish in time). A refusal is the guard's own error,
 * exactly as for a plain fetch; on a redirect hop it says which hop.
 */
function navigationFailure(error: unknown, main: MainFrameState, proxy: GuardedProxy): WebgateError | undefined {
  if (main.redirectLimitHit) {
    return new WebgateError("too_many_redirects", `The origin redirected more than ${main.hop - 1} times.`, {
      details: { redirects: main.hop, limit: main.hop - 1 },
    });
  }
  const failure = proxy.failureFor(authorityOf(main.url));
  if (failure && main.response === undefined) return atHop(failure, main.hop);
  if (main.response !== undefined) return undefined;
  if (isTimeout(error)) return new WebgateError("upstream_timeout", "The page did not load within the time limit.", { cause: error });
  if (isWebgateError(error)) return error;
  const net = /net::(ERR_[A-Z_]+)/.exec(error instanceof Error ? error.message : "")?.[1];
  return new WebgateError("connect_failed", `The browser could not load the page${net ? ` (${net})` : ""}.`, { cause: error });
}

/**
 * The guard's error when the top-level document is the proxy's refusal (a plain-http hop the
 * proxy refused answers 403 with X-Webgate-Refusal, a header no origin can put there: the proxy
 * removes it from forwarded answers) or the browser's error page for a refused tunnel, as after
 * the page navigated itself somewhere refused.
 */
function topLevelRefusal(page: Page, main: MainFrameState, proxy: GuardedProxy): WebgateError | undefined {
  const response = main.response;
  if (response !== undefined && response.headers()["x-webgate-refusal"] !== undefined) {
    const failure = proxy.failureFor(authorityOf(response.url()));
    const hop = response.request().redirectChain().length;
    return atHop(failure ?? new WebgateError("url_not_allowed", "The page navigated to a URL the guard refused."), hop);
  }
  if (page.url().startsWith("chrome-error:")) {
    const failure = proxy.failureFor(authorityOf(main.url));
    return failure ? atHop(failure, main.hop) : new WebgateError("connect_failed", "The page navigated to a URL the browser could not load.");
  }
  return undefined;
}

/** A refusal on redirect hop `hop` says which hop, as the plain fetch's guard does. */
function atHop(failure: WebgateError, hop: number): WebgateError {
  if (hop === 0 || failure.code === "upstream_timeout") return failure;
  return new WebgateError(failure.code, `Redirect ${hop} refused: ${failure.message}`, {
    cause: failure,
    details: { ...failure.details, redirect: hop },
  });
}

function isTimeout(error: unknown): boolean {
  return error instanceof Error && error.name === "TimeoutError";
}

function isRedirect(status: number): boolean {
  return status >= 300 && status < 400;
}

function redirectsOf(response: HTTPResponse): RedirectHop[] {
  return response
    .request()
    .redirectChain()
    .map((hop) => {
      const answer = hop.response();
      const location = answer?.headers().location ?? "";
      let resolved = location;
      try {
        resolved = new URL(location, hop.url()).href;
      } catch {
        // An unparsable Location stays as the origin wrote it.
      }
      return { url: hop.url(), status: answer?.status() ?? 0, location: resolved };
    });
}

/**
 * The DOM as HTML, read over the DevTools protocol with the page's scripts stopped first: a
 * script in an endless loop is terminated, none runs again, and the read itself runs no script.
 */
async function readDom(cdp: CDPSession): Promise<string> {
  void cdp.send("Page.stopLoading").catch(() => undefined);
  void cdp.send("Runtime.terminateExecution").catch(() => undefined);
  const step = async <T>(work: Promise<T>): Promise<T> => {
    const value = await settleWithin(work, SNAPSHOT_STEP_MS);
    if (value === undefined) throw new WebgateError("upstream_timeout", "The page kept the browser busy; nothing could be read from it in time.");
    return value;
  };
  await step(cdp.send("Emulation.setScriptExecutionDisabled", { value: true }));
  const { root } = await step(cdp.send("DOM.getDocument", { depth: 0 }));
  const { outerHTML } = await step(cdp.send("DOM.getOuterHTML", { nodeId: root.nodeId }));
  return outerHTML;
}

/** The promise's value, or undefined when it rejects or takes longer than `ms`. */
async function settleWithin<T>(work: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  try {
    return await Promise.race([work.catch(() => undefined), late]);
  } finally {
    clearTimeout(timer);
  }
}

function renderPolicy(url: string, policy: GuardPolicy): GuardPolicy {
  const home = homeOf(url).home;
  return home === undefined ? withoutLocalhost(policy) : requestPolicy(home, policy);
}

/** The page's URL for the proxy's same-port rule of the dev switch; none when it does not parse. */
function homeOf(url: string): { home?: URL } {
  try {
    return { home: new URL(url) };
  } catch {
    return {};
  }
}
