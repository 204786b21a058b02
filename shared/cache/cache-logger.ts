/**
 * The few log calls the cache, the fetch lease and the robots.txt store make. The Powertools
 * Logger fits. Fields never hold content, a URL or a query string: only the hashed URL key,
 * snapshot ids and failure reasons.
 */
import type { StoreUnavailableError } from "./page-store";

export interface CacheLogger {
  warn(message: string, fields: Record<string, string | number | boolean>): void;
}

/** Logs that the store failed during `operation`; the request is then answered from the origin. */
export function logStoreDown(logger: CacheLogger, error: StoreUnavailableError, urlKey: string, operation: string): void {
  logger.warn("page store unavailable; answering from the origin", { urlKey, operation, reason: error.reason, error: error.message });
}
