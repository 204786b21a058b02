import { WebgateError } from "../errors";

/**
 * What the conversion needs of the request's deadline (shared/deadline.ts's `Deadline` has it):
 * whether it has passed. The conversion is synchronous, so it asks at checkpoints in its loops
 * instead of waiting on a signal; tests pass a deadline whose clock they drive.
 */
export interface ConversionDeadline {
  expired(): boolean;
}

/** The error of a conversion that ran past its time budget (502, not retryable: the same page will not convert faster). */
export function conversionTimeLimit(): WebgateError {
  return new WebgateError(
    "content_too_complex",
    "Converting the page did not finish within the request's time budget: the page is too large or too complex to convert. Try main_content false, or another URL with the same content.",
    { details: { reason: "conversion_time_limit" } },
  );
}

/**
 * How many units of work (parsed tags and text runs, serialized nodes) pass between two looks at
 * the clock. A look costs a `performance.now()` (tens of nanoseconds), a unit well over a
 * microsecond, so at 1,024 the checks cost nothing measurable while a conversion still stops
 * within a millisecond or so of its deadline.
 */
export const CHECK_EVERY = 1_024;

/**
 * Counts work and throws {@link conversionTimeLimit} at the first checkpoint after the deadline
 * has passed. Without a deadline it never throws (and costs one increment per unit).
 */
export class WorkMeter {
  private units = 0;

  constructor(
    private readonly deadline: ConversionDeadline | undefined,
    private readonly every = CHECK_EVERY,
  ) {}

  /** One unit of work; every {@link CHECK_EVERY}th looks at the deadline. */
  tick(): void {
    if (++this.units % this.every === 0) this.check();
  }

  /** Looks at the deadline now (between phases of the conversion). */
  check(): void {
    if (this.deadline !== undefined && this.deadline.expired()) throw conversionTimeLimit();
  }
}
