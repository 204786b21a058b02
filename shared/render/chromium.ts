/**
 * Starting Chromium for rendering: the command line that takes every way around the guarded
 * proxy away from the browser, a fresh profile per launch, and the DevTools protocol over a pipe
 * (no debugging port for anything else on the machine to connect to).
 */
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import puppeteer from "puppeteer-core";
import { WebgateError } from "../errors";
import type { BrowserLauncher } from "./browser-pool";
import { startRefusingProxy } from "./guarded-proxy";

export interface ChromiumLaunchOptions {
  /** The binary, or how to get it (a Lambda-packaged Chromium is unpacked on first use). */
  executablePath: string | (() => Promise<string>);
  /** `true`: Chromium's headless mode; `"shell"`: chrome-headless-shell builds (Lambda's). */
  headless?: true | "shell";
  /** Lambda: no zygote, one process (its sandbox rules allow no other way). */
  singleProcess?: boolean;
  /**
   * Base64 SHA-256 hashes of certificate public keys the browser accepts without a trusted
   * chain (Chromium `--ignore-certificate-errors-spki-list`). Tests pass the test certificate's
   * key; production passes nothing.
   */
  trustedSpkiHashes?: string[];
  /**
   * Extra environment for the browser process (e.g. the library and font paths of a Lambda
   * build). The browser inherits nothing else: not the function's AWS credentials, not keys.
   */
  environment?: Record<string, string>;
  /** Longest time a launch may take. */
  launchTimeoutMs?: number;
}

/**
 * The flags every rendering browser runs with. `browserProxy` is the browser-wide proxy: a
 * listener that refuses everything ({@link startRefusingProxy}); each page gets its own guarded
 * proxy through its browser context, so the browser's own background requests (updates, time
 * sync, sign-in) reach nothing. Pure: exported for tests.
 */
export function chromiumArgs(browserProxy: string, options: Pick<ChromiumLaunchOptions, "singleProcess" | "trustedSpkiHashes"> = {}): string[] {
  return [
    // Lambda and CI run as root, where Chromium's setuid sandbox cannot start. The guard does
    // not rely on the OS sandbox: the browser has no network but the guarded proxy.
    "--no-sandbox",
    "--disable-gpu",
    // Every request goes to a proxy; loopback too (Chromium bypasses proxies for loopback
    // unless told otherwise), so a page's fetch('http://127.0.0.1:…') is refused there.
    `--proxy-server=${browserProxy}`,
    "--proxy-bypass-list=<-loopback>",
    // The browser resolves no name itself: the proxy resolves (once, checked). Any lookup the
    // browser would still make (DNS prefetch, preconnect) fails.
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
    // QUIC is UDP and would not go through an HTTP proxy.
    "--disable-quic",
    // WebRTC may use UDP only through a proxy, which an HTTP proxy never offers: no UDP at all.
    "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
    "--webrtc-ip-handling-policy=disable_non_proxied_udp",
    // The browser's own traffic: updates, sync, safe-browsing pings, metrics, field trials.
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-domain-reliability",
    "--disable-client-side-phishing-detection",
    "--no-pings",
    "--no-default-browser-check",
    "--disable-features=DnsOverHttps,AutofillServerCommunication,CertificateTransparencyComponentUpdater,InterestFeedContentSuggestions,PrivacySandboxSettings4,NetworkTimeServiceQuerying",
    // Images never affect the text; Blink does not even request them.
    "--blink-settings=imagesEnabled=false",
    "--mute-audio",
    ...(options.singleProcess ? ["--single-process", "--no-zygote"] : []),
    ...(options.trustedSpkiHashes && options.trustedSpkiHashes.length > 0
      ? [`--ignore-certificate-errors-spki-list=${options.trustedSpkiHashes.join(",")}`]
      : []),
  ];
}

/**
 * A {@link BrowserLauncher} for a Chromium binary: a fresh `--user-data-dir` per launch (removed
 * when the browser goes away), the DevTools protocol over a pipe, popups blocked, extensions off.
 *
 * @throws WebgateError `render_unavailable` when the binary is missing or does not start.
 */
export function createChromiumLauncher(options: ChromiumLaunchOptions): BrowserLauncher {
  return async () => {
    let executablePath: string;
    try {
      executablePath = typeof options.executablePath === "string" ? options.executablePath : await options.executablePath();
    } catch (cause) {
      throw new WebgateError("render_unavailable", "The browser could not be unpacked.", { cause });
    }
    if (!existsSync(executablePath)) {
      throw new WebgateError("render_unavailable", `No browser at ${executablePath}. ${INSTALL_HINT}`);
    }
    const refusing = await startRefusingProxy();
    const userDataDir = await mkdtemp(path.join(os.tmpdir(), "webgate-chromium-"));
    const cleanUp = async () => {
      await refusing.close();
      await rm(userDataDir, { recursive: true, force: true }).catch(() => undefined);
    };
    try {
      const browser = await puppeteer.launch({
        executablePath,
        headless: options.headless ?? true,
        pipe: true,
        userDataDir,
        args: chromiumArgs(refusing.url, options),
        // Puppeteer's defaults allow popups; a page may not open windows.
        ignoreDefaultArgs: ["--disable-popup-blocking"],
        handleSIGINT: false,
        handleSIGTERM: false,
        handleSIGHUP: false,
        timeout: options.launchTimeoutMs ?? 30_000,
        protocolTimeout: 30_000,
        // A minimal environment: the browser inherits no credentials or keys from this process.
        env: { PATH: "/usr/local/bin:/usr/bin:/bin", HOME: userDataDir, TMPDIR: os.tmpdir(), LANG: "C.UTF-8", ...options.environment },
        defaultViewport: { width: 1280, height: 900 },
      });
      browser.once("disconnected", () => void cleanUp());
      return browser;
    } catch (error) {
      await cleanUp();
      throw new WebgateError("render_unavailable", "The browser could not be started.", { cause: error });
    }
  };
}

/** What to tell a caller when no browser is installed. */
export const INSTALL_HINT =
  "Install Chromium (Debian/Ubuntu: apt-get install chromium; macOS: install Google Chrome or Chromium) or set WEBGATE_CHROMIUM_PATH to a Chromium or Chrome binary.";

const USUAL_LOCATIONS = [
  "/usr/bin/chromium",
  "/usr/bin/chromium-browser",
  "/usr/bin/google-chrome",
  "/usr/bin/google-chrome-stable",
  "/snap/bin/chromium",
  "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
  "/Applications/Chromium.app/Contents/MacOS/Chromium",
];

/**
 * The Chromium to render with: the configured path when set (even if it does not exist, so the
 * error names it), else the first of the usual install locations that exists, else undefined.
 */
export function findChromium(configured: string | undefined, exists: (file: string) => boolean = existsSync): string | undefined {
  if (configured !== undefined && configured !== "") return configured;
  return USUAL_LOCATIONS.find((candidate) => exists(candidate));
}
