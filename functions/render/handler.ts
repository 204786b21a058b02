/**
 * Lambda entry point of the render function: invoked by the fetch function only (its resource
 * policy and the fetch role's one permission say so), with a URL the fetch function's guard has
 * already normalized. The Chromium is @sparticuz/chromium's, unpacked into /tmp on the first
 * render of an instance and reused after that; the guard's proxy is this process's.
 */
import os from "node:os";
import path from "node:path";
import chromium from "@sparticuz/chromium";
import { ConfigError, ENV, loadConfig } from "../../shared/config";
import { systemResolver } from "../../shared/guard/guarded-lookup";
import { resolvePolicy } from "../../shared/guard/policy";
import { createPowertoolsTelemetry } from "../../shared/observability/telemetry";
import { createLocalRenderer } from "../../shared/render/local-renderer";
import { createRenderHandler } from "../../shared/render/render-route";

const config = loadConfig();

// As for the fetch function: loopback inside Lambda is the runtime API (see functions/fetch).
if (config.fetch.allowLocalhost) {
  throw new ConfigError([`${ENV.ALLOW_LOCALHOST}: a local-server switch that must not be set on the Lambda function`]);
}

const policy = resolvePolicy({
  allowLocalhost: false,
  allowedPorts: config.fetch.allowedPorts,
  allowedDomains: config.fetch.allowedDomains,
  blockedDomains: config.fetch.blockedDomains,
  blockedCidrs: config.fetch.blockedCidrs,
});

// No WebGL or GPU: the text needs neither, and SwiftShader is then not unpacked at all.
chromium.setGraphicsMode = false;

const renderer = createLocalRenderer({
  config,
  policy,
  resolver: systemResolver,
  chromium: {
    executablePath: () => chromium.executablePath(),
    headless: "shell",
    singleProcess: true,
    // Where @sparticuz/chromium unpacks the libraries and fonts its binary needs.
    environment: {
      LD_LIBRARY_PATH: `${path.join(os.tmpdir(), "al2023", "lib")}:/lib64:/usr/lib64`,
      FONTCONFIG_PATH: path.join(os.tmpdir(), "fonts"),
    },
  },
});

export const handler = createRenderHandler({ renderer, policy, telemetry: createPowertoolsTelemetry("webgate-render") });
