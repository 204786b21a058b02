/**
 * One browser per process (per function instance), reused by every render, with at most
 * `concurrency` pages at once. A browser that crashed or was closed is noticed through its
 * `disconnected` event and replaced by a fresh launch on the next request; a launch that fails
 * is retried on the next request too, never cached.
 */
import type { Browser } from "puppeteer-core";
import { WebgateError, isWebgateError } from "../errors";

/** Starts a browser. Production: {@link createChromiumLauncher}; it fails with `render_unavailable`. */
export type BrowserLauncher = () => Promise<Browser>;

export interface BrowserPoolOptions {
  launch: BrowserLauncher;
  /** Pages rendered at once (`WEBGATE_RENDER_CONCURRENCY`); more requests wait for a slot. */
  concurrency: number;
}

export class BrowserPool {
  private current: Promise<Browser> | undefined;
  private active = 0;
  private readonly waiting: Array<() => void> = [];
  private closed = false;
  /** Browsers launched so far (a test and an operator can see reuse and replacement). */
  launches = 0;

  constructor(private readonly options: BrowserPoolOptions) {
    if (!Number.isInteger(options.concurrency) || options.concurrency < 1) {
      throw new RangeError("BrowserPool concurrency must be a positive whole number");
    }
  }

  /**
   * Runs `work` with the shared browser once a page slot is free. Waiting for a slot ends with
   * `upstream_timeout` when `signal` aborts first.
   *
   * @throws WebgateError `render_unavailable` when the browser cannot be started or the pool is closed.
   */
  async use<T>(signal: AbortSignal, work: (browser: Browser) => Promise<T>): Promise<T> {
    await this.acquire(signal);
    try {
      const browser = await this.browser();
      return await work(browser);
    } finally {
      this.release();
    }
  }

  /** Closes the browser; later calls to {@link use} fail with `render_unavailable`. */
  async close(): Promise<void> {
    this.closed = true;
    const current = this.current;
    this.current = undefined;
    if (current) await current.then((b) => b.close()).catch(() => undefined);
  }

  private browser(): Promise<Browser> {
    if (this.closed) return Promise.reject(new WebgateError("render_unavailable", "The browser pool is closed."));
    if (this.current) return this.current;
    this.launches += 1;
    const launching = this.options.launch().then(
      (browser) => {
        browser.once("disconnected", () => {
          if (this.current === launching) this.current = undefined;
        });
        // A browser that died between launch and this line would never emit the event again.
        if (!browser.connected && this.current === launching) this.current = undefined;
        return browser;
      },
      (error: unknown) => {
        if (this.current === launching) this.current = undefined;
        throw isWebgateError(error) ? error : new WebgateError("render_unavailable", "The browser could not be started.", { cause: error });
      },
    );
    this.current = launching;
    return launching;
  }

  private acquire(signal: AbortSignal): Promise<void> {
    if (this.active < this.options.concurrency) {
      this.active += 1;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        const index = this.waiting.indexOf(grant);
        if (index !== -1) this.waiting.splice(index, 1);
        reject(new WebgateError("upstream_timeout", "No browser page became free within the time limit."));
      };
      const grant = () => {
        signal.removeEventListener("abort", onAbort);
        resolve();
      };
      if (signal.aborted) {
        onAbort();
        return;
      }
      signal.addEventListener("abort", onAbort, { once: true });
      this.waiting.push(grant);
    });
  }

  private release(): void {
    const next = this.waiting.shift();
    // The slot passes straight to the next waiter, so `active` stays at the limit.
    if (next) next();
    else this.active -= 1;
  }
}
