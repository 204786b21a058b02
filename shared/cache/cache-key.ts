/**
 * Cache keys for the page store. Pure: no I/O, no clock.
 */
import { createHash } from "node:crypto";

/**
 * Returns a stable key for a URL that the guard has already checked and normalized, plus a
 * variant (e.g. `"main:v1"` / `"full:v1"`: the extraction mode and the conversion version, so a
 * new converter never serves snapshots made by an old one).
 *
 * The key is the lowercase hex SHA-256 of the variant and the URL without its fragment (a
 * fragment is never sent to the origin, so `#a` and `#b` are the same page). Hashing keeps keys
 * short and keeps query strings (which may carry tokens) out of the table's keys and the logs.
 * The two parts are JSON-encoded together so no choice of variant can collide with another URL.
 */
export function cacheKeyFor(url: URL, variant: string): string {
  const withoutFragment = new URL(url.href);
  withoutFragment.hash = "";
  return createHash("sha256").update(JSON.stringify([variant, withoutFragment.href]), "utf8").digest("hex");
}
