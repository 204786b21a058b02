/**
 * Recognizes bot-protection challenge and block pages, so /fetch answers
 * `blocked_by_bot_protection` instead of handing a challenge page to an agent as if it were the
 * content. Pure: headers and the first bytes of the body in, a verdict out.
 *
 * webgate never tries to pass a challenge (no JavaScript, no cookies, no retries with other
 * headers): recognizing one only makes the answer honest.
 *
 * The signatures are deliberately few and specific (docs/content.md lists them):
 * - headers that vendors set only on a mitigated answer, whatever its status;
 * - for a 403, 429 or 503 answer, small strings that appear in the vendors' interstitial pages.
 * Body strings are not looked for in 2xx answers: an article about Cloudflare that quotes
 * "Just a moment..." must stay readable.
 */

/** Bot-management vendors recognized by name (`details.vendor`). */
export type BotProtectionVendor = "cloudflare" | "akamai" | "datadome" | "perimeterx" | "imperva" | "aws-waf" | "sucuri" | "vercel";

export interface BotProtectionVerdict {
  /** The vendor when a vendor-specific signature matched; null for a generic interstitial. */
  vendor: BotProtectionVendor | null;
  /** Which signature matched (for logs and tests). */
  signature: string;
}

export interface BotProtectionInput {
  status: number;
  /** Header names in lower case. */
  headers: Readonly<Record<string, string>>;
  body: Uint8Array;
}

/** How much of the body is searched: interstitials put their markers in the first few KiB. */
export const BOT_SCAN_BYTES = 32_768;

/** Statuses whose body is searched for interstitial markers. */
const CHALLENGE_STATUSES = new Set([403, 429, 503]);

interface HeaderSignature {
  header: string;
  /** Lower-case value test; undefined means any value. */
  value?: (value: string) => boolean;
  vendor: BotProtectionVendor;
}

/** Headers that only a mitigated (challenged or blocked) answer carries. */
const HEADER_SIGNATURES: readonly HeaderSignature[] = [
  // Cloudflare sets `cf-mitigated: challenge` on every challenge answer (managed, JS, interactive).
  { header: "cf-mitigated", vendor: "cloudflare" },
  // AWS WAF's Challenge and CAPTCHA actions answer 202/405 with this header.
  { header: "x-amzn-waf-action", value: (v) => v === "challenge" || v === "captcha", vendor: "aws-waf" },
  // Vercel's firewall challenge.
  { header: "x-vercel-mitigated", value: (v) => v === "challenge" || v === "deny", vendor: "vercel" },
  // Sucuri's firewall block page.
  { header: "x-sucuri-block", vendor: "sucuri" },
];

interface BodySignature {
  /** Lower-case substring of the body. */
  text: string;
  vendor: BotProtectionVendor | null;
  /** Also requires this header (lower-case name, lower-case substring of its value). */
  header?: { name: string; includes: string };
}

/** Interstitial markers, searched in 403/429/503 bodies only; vendor-specific ones first. */
const BODY_SIGNATURES: readonly BodySignature[] = [
  { text: "/cdn-cgi/challenge-platform/", vendor: "cloudflare" },
  { text: "cf-browser-verification", vendor: "cloudflare" },
  { text: "attention required! | cloudflare", vendor: "cloudflare" },
  { text: "captcha-delivery.com", vendor: "datadome" },
  { text: "px-captcha", vendor: "perimeterx" },
  { text: "_pxappid", vendor: "perimeterx" },
  { text: "incapsula incident id", vendor: "imperva" },
  { text: "_incapsula_resource", vendor: "imperva" },
  { text: "awswafintegration", vendor: "aws-waf" },
  { text: "sucuri website firewall", vendor: "sucuri" },
  // Akamai's block page links its error reference site, often entity-encoded; its plain
  // "Access Denied … Reference #18.…" form counts only when AkamaiGHost served it.
  { text: "errors.edgesuite.net", vendor: "akamai" },
  { text: "errors&#46;edgesuite&#46;net", vendor: "akamai" },
  { text: "reference #", vendor: "akamai", header: { name: "server", includes: "akamaighost" } },
  // Cloudflare's interstitial title, and the classic DDoS-protection wording, on a Cloudflare answer.
  { text: "just a moment...", vendor: "cloudflare", header: { name: "server", includes: "cloudflare" } },
  { text: "just a moment...", vendor: null },
  { text: "checking your browser", vendor: null },
  { text: "enable javascript and cookies to continue", vendor: null },
  { text: "verify you are human", vendor: null },
];

/**
 * A challenge or block page, or null when the answer looks like an ordinary one.
 * Header signatures count on any status; body signatures only on 403, 429 and 503.
 */
export function detectBotProtection(input: BotProtectionInput): BotProtectionVerdict | null {
  for (const sig of HEADER_SIGNATURES) {
    const value = input.headers[sig.header];
    if (value === undefined) continue;
    if (sig.value === undefined || sig.value(value.trim().toLowerCase())) return { vendor: sig.vendor, signature: `header ${sig.header}` };
  }
  if (!CHALLENGE_STATUSES.has(input.status)) return null;
  // latin1 maps each byte to one character: ASCII markers are found whatever the page's charset.
  const head = Buffer.from(input.body.buffer, input.body.byteOffset, Math.min(input.body.byteLength, BOT_SCAN_BYTES))
    .toString("latin1")
    .toLowerCase()
    // "Just a moment…" with the ellipsis character in UTF-8 (E2 80 A6 read as latin1).
    .replaceAll("\u00e2\u0080\u00a6", "...");
  for (const sig of BODY_SIGNATURES) {
    if (!head.includes(sig.text)) continue;
    if (sig.header !== undefined && !(input.headers[sig.header.name] ?? "").toLowerCase().includes(sig.header.includes)) continue;
    return { vendor: sig.vendor, signature: `body "${sig.text}"` };
  }
  return null;
}

const VENDOR_NAMES: Record<BotProtectionVendor, string> = {
  cloudflare: "Cloudflare",
  akamai: "Akamai",
  datadome: "DataDome",
  perimeterx: "HUMAN (PerimeterX)",
  imperva: "Imperva",
  "aws-waf": "AWS WAF",
  sucuri: "Sucuri",
  vercel: "Vercel",
};

/** The caller-facing message for a verdict. */
export function botProtectionMessage(verdict: BotProtectionVerdict, status: number): string {
  const who = verdict.vendor === null ? "a bot-protection service" : VENDOR_NAMES[verdict.vendor];
  return `The origin answered HTTP ${status} with a challenge or block page from ${who} instead of the content; webgate does not try to pass such checks.`;
}
