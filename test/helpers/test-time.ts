/**
 * Monotonic time that a test drives, for request deadlines (shared/deadline.ts's `DeadlineTime`):
 * its clock and its timers agree, so a deadline on it never aborts because the machine was slow.
 * It stands still unless the test moves it:
 * - {@link TestTime.advance} steps it (a fake sleep), firing the timers that fall due, in order;
 * - {@link TestTime.runWhile} lets it pass `rate` times as fast as real time while some work runs,
 *   and stops it when the work settles or `until` aborts.
 *
 * A test with a time budget thus decides which phase spends it: with {@link runTimeWhileConverting}, only
 * the conversion does, and the origin exchange, the page store and the answer take no time at
 * all however loaded the machine is.
 */
import type { DocumentConverter } from "../../shared/content/converter";
import type { DeadlineTime } from "../../shared/deadline";

interface Timer {
  due: number;
  fire: () => void;
  real: ReturnType<typeof setTimeout> | undefined;
}

export class TestTime implements DeadlineTime {
  /** The time when it last stopped (or started). */
  private base: number;
  /** `performance.now()` when it started moving; undefined while it stands still. */
  private startedAt: number | undefined;
  private rate = 1;
  /** Inside {@link TestTime.runWhile}, until `work` settles or `until` aborts. */
  private runs = false;
  private readonly timers = new Set<Timer>();

  constructor(start = 0) {
    this.base = start;
  }

  /**
   * While it runs, the time waits at the next timer's due time until that timer has fired, and
   * stands at that time while the timer's callback runs: a deadline is never seen passed before
   * its signal aborted, however late the real timer fires on a loaded machine.
   */
  readonly now = (): number => {
    if (this.startedAt === undefined) return this.base;
    let at = this.base + (performance.now() - this.startedAt) * this.rate;
    for (const timer of this.timers) if (timer.due < at) at = timer.due;
    return Math.max(this.base, at);
  };

  readonly setTimer = (fire: () => void, ms: number): (() => void) => {
    const timer: Timer = { due: this.now() + Math.max(0, ms), fire, real: undefined };
    this.timers.add(timer);
    if (this.startedAt !== undefined) this.arm(timer);
    return () => {
      this.timers.delete(timer);
      if (timer.real !== undefined) clearTimeout(timer.real);
    };
  };

  /** True inside {@link TestTime.runWhile} until it stopped. */
  get running(): boolean {
    return this.runs;
  }

  /** Timers not yet fired or cancelled. */
  get pendingTimers(): number {
    return this.timers.size;
  }

  /** Moves the stopped time `ms` on, firing the timers due by then in the order they fall due. */
  advance(ms: number): void {
    if (this.runs) throw new Error("TestTime.advance while it runs");
    const target = this.base + Math.max(0, ms);
    for (;;) {
      let next: Timer | undefined;
      for (const timer of this.timers) if (timer.due <= target && (next === undefined || timer.due < next.due)) next = timer;
      if (next === undefined) break;
      this.timers.delete(next);
      this.base = Math.max(this.base, next.due);
      next.fire();
    }
    this.base = target;
  }

  /**
   * Runs `work` with the time passing `rate` times as fast as real time, until `work` settles or
   * `until` aborts (whichever is first); then the time stands still again.
   */
  async runWhile<T>(work: () => Promise<T>, options: { rate: number; until?: AbortSignal }): Promise<T> {
    if (this.runs) throw new Error("TestTime.runWhile while it already runs");
    const { until } = options;
    const stop = () => this.stop();
    if (until?.aborted !== true) {
      this.rate = options.rate;
      this.runs = true;
      this.move();
      until?.addEventListener("abort", stop, { once: true });
    }
    try {
      return await work();
    } finally {
      until?.removeEventListener("abort", stop);
      this.stop();
    }
  }

  private stop(): void {
    this.runs = false;
    this.hold();
  }

  /** The time stands still (at where it is) and no real timer is left. */
  private hold(): void {
    if (this.startedAt === undefined) return;
    this.base = this.now();
    this.startedAt = undefined;
    for (const timer of this.timers) {
      if (timer.real !== undefined) clearTimeout(timer.real);
      timer.real = undefined;
    }
  }

  /** The time moves on from where it stands, with a real timer for each pending one. */
  private move(): void {
    this.startedAt = performance.now();
    for (const timer of this.timers) this.arm(timer);
  }

  /** A real timer for when `timer` falls due at the current rate (the time is moving). */
  private arm(timer: Timer): void {
    if (timer.real !== undefined) clearTimeout(timer.real);
    const wait = Math.max(0, (timer.due - this.now()) / this.rate);
    timer.real = setTimeout(() => {
      timer.real = undefined;
      if (!this.timers.has(timer) || this.startedAt === undefined) return;
      // Real timers may fire a little early; a timer fires only once its time has come. (now()
      // waits at the earliest due time, so `timer` is due once now() reaches its time.)
      if (this.now() < timer.due) return this.arm(timer);
      this.hold();
      this.timers.delete(timer);
      this.base = Math.max(this.base, timer.due);
      timer.fire();
      if (this.runs) this.move();
    }, Math.ceil(wait));
    timer.real.unref?.();
  }
}

/**
 * `converter`, with `time` running `rate` times as fast as real time while each conversion runs,
 * up to the conversion's deadline: the conversion is then the only phase that spends the request's
 * budget, and what follows its deadline (its answer, the store write) takes no time.
 */
export function runTimeWhileConverting(time: TestTime, converter: DocumentConverter, rate: number): DocumentConverter {
  return {
    convert: (input, deadline) => time.runWhile(() => converter.convert(input, deadline), { rate, until: deadline?.signal }),
  };
}
