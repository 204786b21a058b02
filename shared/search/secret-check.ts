/**
 * Refuses queries that look like they carry a credential (pure core).
 *
 * Agents sometimes paste an API key or token into a search query. A search query leaves the
 * service for a third party, so a run of 40 or more characters from the base64/base64url/hex
 * alphabet (`A-Z a-z 0-9 + / _ = -`) is refused before any provider sees it. 40 covers a
 * SHA-1 hex digest, GitHub and AWS secret keys, JWT segments; ordinary words and most URLs in
 * queries are shorter runs because spaces, dots and `?&:` break them.
 */
import { WebgateError } from "../errors";

export const SECRET_RUN_LENGTH = 40;

// Linear-time: one character class with a bounded minimum, no nested quantifiers.
const SECRET_RUN = new RegExp(`[A-Za-z0-9+/_=-]{${SECRET_RUN_LENGTH},}`);

/** True when `query` holds a run of at least {@link SECRET_RUN_LENGTH} secret-alphabet characters. */
export function looksLikeSecret(query: string): boolean {
  return SECRET_RUN.test(query);
}

/**
 * Throws `query_looks_like_secret` (400) when {@link looksLikeSecret} holds.
 * The message never repeats the query: it may be the secret.
 */
export function assertQueryIsNotSecret(query: string): void {
  if (looksLikeSecret(query)) {
    throw new WebgateError(
      "query_looks_like_secret",
      `The query holds a run of ${SECRET_RUN_LENGTH} or more letters, digits or +/_=- characters and looks like a key or token; it was not sent to any provider. Remove it and search again.`,
    );
  }
}
