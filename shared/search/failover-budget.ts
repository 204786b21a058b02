/**
 * How the request's remaining time is shared between the provider attempts (pure core).
 *
 * A /search request has one deadline (the Lambda's remaining time less the margin needed to
 * write the answer, itself under API Gateway's 29 s: shared/deadline.ts). When a fallback may follow, the first
 * attempt gets at most {@link FIRST_ATTEMPT_SHARE} of what remains, so a first provider that
 * hangs still leaves the second one the rest; the last attempt gets everything that remains.
 * Neither ever gets more than the provider time limit. The functions take the remaining time as
 * a number, so a caller's deadline (however it is threaded) and a fake clock plug in alike.
 */

/** The first attempt's largest share of the remaining time when a fallback may follow. */
export const FIRST_ATTEMPT_SHARE = 0.55;

/** Below this, an attempt is not started: no provider answers that fast, and the time is the caller's. */
export const MIN_ATTEMPT_MS = 500;

export interface AttemptBudgetInput {
  /** Milliseconds until the request's deadline; undefined when the request has none. */
  remainingMs: number | undefined;
  /** True when another provider may be tried after this attempt. */
  fallbackFollows: boolean;
  /** The provider time limit (ProviderLimits.timeoutMs). */
  limitMs: number;
  /** Defaults to {@link FIRST_ATTEMPT_SHARE}. */
  firstShare?: number;
}

/**
 * This attempt's time in whole milliseconds: the provider limit without a deadline; with one,
 * `min(limit, remaining × share)` when a fallback follows and `min(limit, remaining)` for the
 * last attempt; 0 when no time remains.
 */
export function attemptTimeoutMs(input: AttemptBudgetInput): number {
  const { remainingMs, fallbackFollows, limitMs } = input;
  if (remainingMs === undefined) return limitMs;
  const remaining = Math.max(0, Math.floor(remainingMs));
  const share = input.firstShare ?? FIRST_ATTEMPT_SHARE;
  const budget = fallbackFollows ? Math.floor(remaining * share) : remaining;
  return Math.min(limitMs, budget);
}

/**
 * The part of the request deadline (shared/deadline.ts, created by the API middleware from the
 * Lambda context) the budget needs. A fake with a fake clock serves in tests.
 */
export interface RequestDeadline {
  /** Milliseconds left, never negative. */
  remainingMs(): number;
}

/** Milliseconds left until `deadline`, or undefined without one. */
export function remainingMs(deadline: RequestDeadline | undefined): number | undefined {
  return deadline?.remainingMs();
}
