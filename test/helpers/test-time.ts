/**
 * Monotonic time that a test drives, for request deadlines (shared/deadline.ts's `DeadlineTime`):
 * its clock and its timers agree, so a deadline on it never aborts because the machine was slow.
 * It stands still unless the test moves it with {@link TestTime.advance} (a fake sleep), which
 * fires the timers that fall due, in order.
 */
import type { DeadlineTime } from "../../shared/deadline";

interface Timer {
  due: number;
  fire: () => void;
}

export class TestTime implements DeadlineTime {
  private at: number;
  private readonly timers = new Set<Timer>();

  constructor(start = 0) {
    this.at = start;
  }

  readonly now = (): number => this.at;

  readonly setTimer = (fire: () => void, ms: number): (() => void) => {
    const timer: Timer = { due: this.at + Math.max(0, ms), fire };
    this.timers.add(timer);
    return () => {
      this.timers.delete(timer);
    };
  };

  /** Timers not yet fired or cancelled. */
  get pendingTimers(): number {
    return this.timers.size;
  }

  /** Moves the time `ms` on, firing the timers due by then in the order they fall due (each at its due time). */
  advance(ms: number): void {
    const target = this.at + Math.max(0, ms);
    for (;;) {
      let next: Timer | undefined;
      for (const timer of this.timers) if (timer.due <= target && (next === undefined || timer.due < next.due)) next = timer;
      if (next === undefined) break;
      this.timers.delete(next);
      this.at = Math.max(this.at, next.due);
      next.fire();
    }
    this.at = target;
  }
}
