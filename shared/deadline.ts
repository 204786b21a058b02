/**
 * One deadline per request, threaded through everything that waits: the single-flight lease and
 * the wait for another instance, the origin fetch, the conversion, the store write and the search
 * provider attempts. Every budget is derived from the time the invocation has left, so no part can
 * outlive the function and every overrun ends in a typed error (`upstream_timeout`, 504) that the
 * handler still has time to answer, instead of the platform killing the function.
 *
 * A {@link Deadline} is a point in time plus an {@link AbortSignal} that aborts when it passes.
 * Work that must leave time for what follows takes a narrower one with {@link Deadline.within}.
 *
 * Created by the API middleware from the Lambda context (`context.getRemainingTimeInMillis()`,
 * minus a margin to write the answer) and, in the local server, from the configured limit, which
 * the local server's context reports the same way. Timers are unref'ed: a deadline never keeps a
 * process alive, and {@link Deadline.dispose} clears them when the request ends.
 */

/** The reason a deadline's signal aborts with; `name` is "TimeoutError" like `AbortSignal.timeout`. */
export class DeadlineExceededError extends Error {
  override readonly name = "TimeoutError";
  constructor() {
    super("The request's deadline passed.");
  }
}

export interface Deadline {
  /** Aborts when the deadline passes or a parent deadline (or signal) aborts. */
  readonly signal: AbortSignal;
  /** Milliseconds left, never negative. */
  remainingMs(): number;
  /** True once the deadline passed or the signal aborted. */
  expired(): boolean;
  /**
   * A deadline inside this one: `reserveMs` earlier (time kept for the work that follows) and at
   * most `maxMs` from now. It aborts when this one does. Dispose it when its work is done.
   */
  within(options: { reserveMs?: number; maxMs?: number }): Deadline;
  /** Clears the timer and the listener on the parent; the signal stays as it is. */
  dispose(): void;
}

export interface DeadlineOptions {
  /** Also abort when this aborts (e.g. the caller went away). */
  signal?: AbortSignal;
  /** Monotonic milliseconds; `performance.now` by default. Tests use fake timers, which fake it too. */
  now?: () => number;
}

/** A deadline `budgetMs` from now (a negative or NaN budget is an already expired deadline). */
export function createDeadline(budgetMs: number, options: DeadlineOptions = {}): Deadline {
  const now = options.now ?? (() => performance.now());
  const budget = Number.isFinite(budgetMs) ? Math.max(0, budgetMs) : 0;
  const endsAt = now() + budget;
  const controller = new AbortController();
  const parent = options.signal;
  const onParentAbort = () => controller.abort(parent?.reason ?? new DeadlineExceededError());
  let timer: ReturnType<typeof setTimeout> | undefined;
  const dispose = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    parent?.removeEventListener("abort", onParentAbort);
  };
  if (parent?.aborted) {
    onParentAbort();
  } else if (budget === 0) {
    controller.abort(new DeadlineExceededError());
  } else {
    parent?.addEventListener("abort", onParentAbort, { once: true });
    timer = setTimeout(() => {
      timer = undefined;
      parent?.removeEventListener("abort", onParentAbort);
      controller.abort(new DeadlineExceededError());
    }, budget);
    // A deadline is a bound, never a reason for the process to stay up.
    timer.unref?.();
  }
  const deadline: Deadline = {
    signal: controller.signal,
    remainingMs: () => (controller.signal.aborted ? 0 : Math.max(0, endsAt - now())),
    expired: () => controller.signal.aborted || now() >= endsAt,
    within: ({ reserveMs = 0, maxMs = Number.POSITIVE_INFINITY }) =>
      createDeadline(Math.min(deadline.remainingMs() - Math.max(0, reserveMs), maxMs), { signal: controller.signal, now }),
    dispose,
  };
  return deadline;
}

/** The part of the Lambda context a deadline needs. */
export interface RemainingTime {
  getRemainingTimeInMillis?: () => number;
}

/**
 * The request deadline from the invocation's remaining time minus `marginMs` (the time to write
 * the answer and its log line). A context without the function (a hand-made test context) gets
 * `fallbackMs`.
 */
export function deadlineFromContext(context: RemainingTime, options: { marginMs: number; fallbackMs: number; signal?: AbortSignal }): Deadline {
  const remaining = typeof context.getRemainingTimeInMillis === "function" ? context.getRemainingTimeInMillis() : options.fallbackMs;
  return createDeadline(remaining - options.marginMs, { signal: options.signal });
}
