/**
 * Link and image references of the Markdown: resolved against the page's base URL, and the
 * decisions webgate's turndown rules take on them (turndown-setup.ts).
 */

/** Link schemes that run code or carry a payload instead of pointing somewhere: kept as text only. */
export const TEXT_ONLY_SCHEMES: ReadonlySet<string> = new Set(["javascript:", "vbscript:", "data:"]);

const HAS_SCHEME = /^[a-z][a-z0-9+.-]*:/i;

/**
 * Resolves a link or image reference against the base URL. An absolute reference is kept as
 * written (resolving would only normalise it); a relative one becomes absolute; one that does
 * not parse is kept as written.
 */
export function resolveReference(raw: string, baseUrl: string | null): { href: string; scheme: string | null } {
  const trimmed = raw.trim();
  let parsed: URL | null = null;
  try {
    parsed = baseUrl === null ? new URL(trimmed) : new URL(trimmed, baseUrl);
  } catch {
    parsed = null;
  }
  if (parsed === null) return { href: trimmed, scheme: null };
  return { href: HAS_SCHEME.test(trimmed) ? trimmed : parsed.href, scheme: parsed.protocol };
}

/**
 * A relative reference the URL parser resolves by plain concatenation against an http(s) base:
 * a path (absolute, not `//`, or relative), a query or a fragment made only of characters no part
 * of the URL parser changes (no spaces, controls, quotes, angle brackets, backslashes, backticks,
 * braces or non-ASCII, which it percent-encodes or reads as slashes), with no segment starting
 * with `.` or `%2e` (dot segments, which it removes).
 */
const SIMPLE_RELATIVE = /^(?!\/\/)[A-Za-z0-9\-._~!$&()*+,;=:@%/]*(?:\?[A-Za-z0-9\-._~!$&()*+,;=:@%/?]*)?(?:#[A-Za-z0-9\-._~!$&()*+,;=:@%/?]*)?$/;
const DOT_SEGMENT = /(?:^|\/)(?:\.|%2e)/i;

/**
 * {@link resolveReference}'s decisions for one base URL, without the URL parser where it is
 * not needed: a reference with a scheme is kept as written, and only a scheme that matters
 * (`javascript:`, `vbscript:`, `data:`) is parsed; a simple relative reference (see
 * SIMPLE_RELATIVE) is joined to the parsed base's parts. Anything else goes through
 * {@link resolveReference}. A property test compares the two on random references and bases.
 * (The URL class built one object with a dozen private fields per link: 7% of converting a page.)
 */
export class ReferenceResolver {
  /** The base up to its path (`https://user@host:8080`), or null when the fast path is off (no http(s) base). */
  private readonly origin: string | null = null;
  /** The base's path up to its last `/`, its path, and its path with its query. */
  private readonly directory: string = "";
  private readonly path: string = "";
  private readonly document: string = "";

  constructor(readonly baseUrl: string | null) {
    if (baseUrl === null) return;
    let base: URL;
    try {
      base = new URL(baseUrl);
    } catch {
      return;
    }
    if (base.protocol !== "http:" && base.protocol !== "https:") return;
    const href = base.href.slice(0, base.href.length - base.hash.length);
    const tail = base.pathname + base.search;
    if (!href.endsWith(tail) || !base.pathname.startsWith("/")) return;
    this.origin = href.slice(0, href.length - tail.length);
    this.path = this.origin + base.pathname;
    this.directory = this.origin + base.pathname.slice(0, base.pathname.lastIndexOf("/") + 1);
    this.document = href;
  }

  /** A link's target, and whether the link is kept as text only (its scheme is in {@link TEXT_ONLY_SCHEMES}). */
  link(raw: string): { href: string; textOnly: boolean } {
    const trimmed = raw.trim();
    const scheme = schemeOf(trimmed);
    if (scheme !== null && !TEXT_ONLY_SCHEMES.has(scheme)) return { href: trimmed, textOnly: false };
    const joined = scheme === null ? this.joined(trimmed) : null;
    if (joined !== null) return { href: joined, textOnly: false };
    const { href, scheme: parsed } = resolveReference(trimmed, this.baseUrl);
    return { href, textOnly: parsed !== null && TEXT_ONLY_SCHEMES.has(parsed) };
  }

  /** An image's source, or null when the image is dropped (a `data:` source); `raw` is not blank. */
  image(raw: string): string | null {
    const trimmed = raw.trim();
    const scheme = schemeOf(trimmed);
    // A scheme other than data: is kept as written, and what is written does not start with data:.
    if (scheme !== null) return scheme === "data:" ? null : trimmed;
    const joined = this.joined(trimmed);
    if (joined !== null) return joined;
    const { href, scheme: parsed } = resolveReference(trimmed, this.baseUrl);
    return parsed === "data:" || href.toLowerCase().startsWith("data:") ? null : href;
  }

  /** A simple relative reference joined to the base, or null. */
  private joined(ref: string): string | null {
    if (this.origin === null || ref === "" || !SIMPLE_RELATIVE.test(ref) || DOT_SEGMENT.test(ref)) return null;
    const c = ref.charCodeAt(0);
    if (c === 47) return this.origin + ref; // "/"
    if (c === 63) return this.path + ref; // "?"
    if (c === 35) return this.document + ref; // "#"
    return this.directory + ref;
  }
}

/**
 * The scheme the URL parser reads from a trimmed reference that starts with one (lower case, with
 * its colon), else null. The parser drops tabs and newlines anywhere, which a scheme matched
 * here holds none of, so it reads the same letters.
 */
function schemeOf(trimmed: string): string | null {
  const m = HAS_SCHEME.exec(trimmed);
  return m === null ? null : m[0].toLowerCase();
}
