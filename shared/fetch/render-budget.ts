/**
 * How a render of /fetch divides the time it is given. Pure.
 */
import type { WebgateConfig } from "../config";
import type { RenderRequest } from "../render/renderer";

/** Time a render keeps after the wait for reading the DOM and closing the page. */
const RENDER_READ_RESERVE_MS = 2_000;

/**
 * The render's limits within `budgetMs`: the wait is at most a quarter of it, the load gets the
 * rest less the time to read the DOM, and neither exceeds its configured limit. Without a budget
 * (no request deadline) both get their configured limits.
 */
export function renderBudget(url: string, budgetMs: number | undefined, config: WebgateConfig): RenderRequest {
  const total = budgetMs ?? config.fetch.timeoutMs + config.render.waitMs + RENDER_READ_RESERVE_MS;
  const waitMs = Math.max(0, Math.min(config.render.waitMs, Math.floor(total / 4)));
  const timeoutMs = Math.max(1, Math.min(config.fetch.timeoutMs, Math.floor(total - waitMs - RENDER_READ_RESERVE_MS)));
  return { url, waitMs, timeoutMs };
}
