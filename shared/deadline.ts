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

/**
 * The time a deadline runs on: a monotonic clock and a one-shot timer on that same clock.
 * {@link monotonicTime} (`performance.now` and an unref'ed `setTimeout`) everywhere but tests;
 * a test that drives its own clock passes both halves, so the signal never aborts on real time
 * while `remainingMs()` reads the test's (test/helpers/test-time.ts).
 */
export interface DeadlineTime {
  /** Monotonic milliseconds. */
  now: () => number;
  /** Calls `fire` once `ms` have passed on {@link DeadlineTime.now}'s clock; returns the cancel. */
  setTimer: (fire: () => void, ms: number) => () => void;
}

/** Real time: `performance.now`, and timers that never keep the process alive. */
export const monotonicTime: DeadlineTime = {
  now: () => performance.now(),
  setTimer: (fire, ms) => {
    const timer = setTimeout(fire, ms);
    // A deadline is a bound, never a reason for the process to stay up.
    timer.unref?.();
    return () => clearTimeout(timer);
  },
};

export interface DeadlineOptions {
  /** Also abort when this aborts (e.g. the caller went away). */
  signal?: AbortSignal;
  /** Monotonic milliseconds; {@link monotonicTime}'s by default (vitest's fake timers fake it too). */
  now?: () => number;
  /**
   * The timer that aborts the signal; {@link monotonicTime}'s by default. Give it with `now`
   * whenever `now` is not real time, or the signal aborts on real time regardless.
   */
  setTimer?: DeadlineTime["setTimer"];
}

/** A deadline `budgetMs` from now (a negative or NaN budget is an already expired deadline). */
export function createDeadline(budgetMs: number, options: DeadlineOptions = {}): Deadline {
  const now = options.now ?? monotonicTime.now;
  const setTimer = options.setTimer ?? monotonicTime.setTimer;
  const budget = Number.isFinite(budgetMs) ? Math.max(0, budgetMs) : 0;
  const endsAt = now() + budget;
  const controller = new AbortController();
  const parent = options.signal;
  const onParentAbort = () => controller.abort(parent?.reason ?? new DeadlineExceededError());
  let cancelTimer: (() => void) | undefined;
  const dispose = () => {
    cancelTimer?.();
    cancelTimer = undefined;
    parent?.removeEventListener("abort", onParentAbort);
  };
  if (parent?.aborted) {
    onParentAbort();
  } else if (budget === 0) {
    controller.abort(new DeadlineExceededError());
  } else {
    parent?.addEventListener("abort", onParentAbort, { once: true });
    cancelTimer = setTimer(() => {
      cancelTimer = undefined;
      parent?.removeEventListener("abort", onParentAbort);
      controller.abort(new DeadlineExceededError());
    }, budget);
  }
  const deadline: Deadline = {
    signal: controller.signal,
    remainingMs: () => (controller.signal.aborted ? 0 : Math.max(0, endsAt - now())),
    expired: () => controller.signal.aborted || now() >= endsAt,
    within: ({ reserveMs = 0, maxMs = Number.POSITIVE_INFINITY }) =>
      createDeadline(Math.min(deadline.remainingMs() - Math.max(0, reserveMs), maxMs), { signal: controller.signal, now, setTimer }),
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
 * the answer and its log line), on `time` ({@link monotonicTime} by default). A context without
 * the function (a hand-made test context) gets `fallbackMs`.
 */
export function deadlineFromContext(
  context: RemainingTime,
  options: { marginMs: number; fallbackMs: number; signal?: AbortSignal; time?: DeadlineTime },
): Deadline {
  const remaining = typeof context.getRemainingTimeInMillis === "function" ? context.getRemainingTimeInMillis() : options.fallbackMs;
  const time = options.time ?? monotonicTime;
  return createDeadline(remaining - options.marginMs, { signal: options.signal, now: time.now, setTimer: time.setTimer });
}
