import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { BOT_SCAN_BYTES, botProtectionMessage, detectBotProtection } from "../../../../shared/fetch/bot-protection";

const fixture = (name: string) => readFileSync(path.resolve(__dirname, "../../../fixtures/bot-protection", name));
const text = (s: string) => Buffer.from(s, "utf8");

describe("detectBotProtection", () => {
  it.each([
    ["cloudflare-challenge.html", 403, { server: "cloudflare" }, "cloudflare"],
    ["cloudflare-challenge.html", 503, {}, "cloudflare"],
    ["cloudflare-block.html", 403, { server: "cloudflare" }, "cloudflare"],
    ["akamai-denied.html", 403, { server: "AkamaiGHost" }, "akamai"],
    ["akamai-denied-plain.html", 403, { server: "AkamaiGHost" }, "akamai"],
    ["datadome.html", 403, {}, "datadome"],
    ["perimeterx.html", 403, {}, "perimeterx"],
    ["imperva.html", 403, {}, "imperva"],
    ["generic-interstitial.html", 429, {}, null],
  ])("recognizes %s answered %i", (file, status, headers, vendor) => {
    expect(detectBotProtection({ status, headers, body: fixture(file) })?.vendor).toBe(vendor);
  });

  it.each([
    ["cf-mitigated", "challenge", 403, "cloudflare"],
    ["cf-mitigated", "challenge", 200, "cloudflare"],
    ["x-amzn-waf-action", "challenge", 202, "aws-waf"],
    ["x-amzn-waf-action", "CAPTCHA", 405, "aws-waf"],
    ["x-vercel-mitigated", "challenge", 429, "vercel"],
    ["x-sucuri-block", "1", 403, "sucuri"],
  ])("recognizes the header %s: %s on HTTP %i", (name, value, status, vendor) => {
    expect(detectBotProtection({ status, headers: { [name]: value }, body: text("") })).toEqual({ vendor, signature: `header ${name}` });
  });

  it("reads the Unicode ellipsis of 'Just a moment…' on a Cloudflare answer", () => {
    const body = text("<title>Just a moment\u2026</title>");
    expect(detectBotProtection({ status: 503, headers: { server: "cloudflare" }, body })?.vendor).toBe("cloudflare");
    expect(detectBotProtection({ status: 503, headers: {}, body })).toEqual({ vendor: null, signature: 'body "just a moment..."' });
  });

  it.each([
    ["an article quoting the markers, answered 200", 200, {}, fixture("article-quoting-challenge.html")],
    ["a challenge body on a 200 without any mitigation header", 200, {}, fixture("cloudflare-challenge.html")],
    ["an ordinary 403", 403, { server: "nginx" }, text("<h1>403 Forbidden</h1>")],
    ["an ordinary 503", 503, {}, text("Service Unavailable")],
    ["an ordinary 404 with a Cloudflare server header", 404, { server: "cloudflare" }, fixture("cloudflare-challenge.html")],
    ["'Reference #' on a 403 not served by Akamai", 403, { server: "nginx" }, fixture("akamai-denied-plain.html")],
    ["an AWS WAF action other than a challenge", 403, { "x-amzn-waf-action": "block-by-origin" }, text("")],
  ])("passes %s", (_name, status, headers, body) => {
    expect(detectBotProtection({ status, headers, body })).toBeNull();
  });

  it("looks only at the first BOT_SCAN_BYTES of the body", () => {
    const late = Buffer.concat([Buffer.alloc(BOT_SCAN_BYTES, 0x20), text("checking your browser")]);
    expect(detectBotProtection({ status: 403, headers: {}, body: late })).toBeNull();
    const early = Buffer.concat([Buffer.alloc(BOT_SCAN_BYTES - 30, 0x20), text("checking your browser")]);
    expect(detectBotProtection({ status: 403, headers: {}, body: early })).not.toBeNull();
  });

  it("names the vendor, or says it is unknown, in the message", () => {
    expect(botProtectionMessage({ vendor: "cloudflare", signature: "x" }, 403)).toContain("HTTP 403 with a challenge or block page from Cloudflare");
    expect(botProtectionMessage({ vendor: null, signature: "x" }, 429)).toContain("from a bot-protection service");
  });
});
