/**
 * Single flight inside one instance: while a call for a key runs, later callers of that key share
 * its promise instead of starting their own, and each waits for it only until its own deadline.
 */
import type { Deadline } from "../deadline";
import { WebgateError } from "../errors";

/** One running promise per key; the entry goes away once the promise settles. */
export class SingleFlight<T> {
  private readonly running = new Map<string, Promise<T>>();

  /** The promise running for `key`, if any. */
  current(key: string): Promise<T> | undefined {
    return this.running.get(key);
  }

  /**
   * The promise running for `key`, or `start()`'s, registered before this returns so that every
   * later caller shares it (a failure reaches all of them with the same error).
   */
  run(key: string, start: () => Promise<T>): Promise<T> {
    return this.running.get(key) ?? this.begin(key, start());
  }

  /**
   * Registers `promise` as the one running for `key` (none may be: see {@link current}) and
   * returns the promise to await, which is the very one later callers share, so a failure is
   * never left unhandled. A caller of its own may keep a narrower type than the others see.
   */
  begin<U extends T>(key: string, promise: Promise<U>): Promise<U> {
    if (this.running.has(key)) throw new Error("single flight: a call for this key is already running");
    const tracked = promise.finally(() => this.running.delete(key));
    this.running.set(key, tracked);
    return tracked;
  }
}

/**
 * `promise`, or `upstream_timeout` when `deadline` passes first (the promise is then left to
 * settle for whoever else awaits it, e.g. the instance's other callers of one fill).
 */
export function untilDeadline<T>(promise: Promise<T>, deadline: Deadline | undefined): Promise<T> {
  if (deadline === undefined) return promise;
  const { signal } = deadline;
  if (signal.aborted) return Promise.reject(deadlineError());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(deadlineError());
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: Error) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

function deadlineError(): WebgateError {
  return new WebgateError("upstream_timeout", "The request took longer than its time limit.");
}
