import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { DeadlineExceededError, createDeadline, deadlineFromContext } from "../../../shared/deadline";
import { TestTime } from "../../helpers/test-time";

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe("createDeadline", () => {
  it("counts down and aborts its signal with a TimeoutError when the time is up", () => {
    const deadline = createDeadline(1_000);
    expect(deadline.remainingMs()).toBe(1_000);
    vi.advanceTimersByTime(400);
    expect(deadline.remainingMs()).toBe(600);
    expect(deadline.expired()).toBe(false);
    vi.advanceTimersByTime(600);
    expect(deadline.signal.aborted).toBe(true);
    expect(deadline.signal.reason).toBeInstanceOf(DeadlineExceededError);
    expect((deadline.signal.reason as Error).name).toBe("TimeoutError");
    expect(deadline.remainingMs()).toBe(0);
    expect(deadline.expired()).toBe(true);
  });

  it("a zero, negative or NaN budget is already expired", () => {
    for (const budget of [0, -5, Number.NaN]) {
      const deadline = createDeadline(budget);
      expect(deadline.signal.aborted).toBe(true);
      expect(deadline.remainingMs()).toBe(0);
    }
  });

  it("within() keeps a reserve for what follows, caps at maxMs and aborts with its parent", () => {
    const parent = createDeadline(10_000);
    const origin = parent.within({ reserveMs: 3_000 });
    expect(origin.remainingMs()).toBe(7_000);
    const capped = parent.within({ maxMs: 2_000 });
    expect(capped.remainingMs()).toBe(2_000);
    vi.advanceTimersByTime(2_000);
    expect(capped.signal.aborted).toBe(true);
    expect(origin.signal.aborted).toBe(false);
    const late = parent.within({});
    parent.dispose();
    // A disposed parent no longer fires its timer; an abort of the parent's own parent does.
    const outer = new AbortController();
    const chained = createDeadline(5_000, { signal: outer.signal });
    const child = chained.within({});
    outer.abort(new Error("caller left"));
    expect(chained.signal.aborted).toBe(true);
    expect(child.signal.aborted).toBe(true);
    expect((child.signal.reason as Error).message).toBe("caller left");
    late.dispose();
    origin.dispose();
  });

  it("an already aborted parent signal gives an aborted deadline; dispose clears the timer", () => {
    const outer = new AbortController();
    outer.abort();
    expect(createDeadline(1_000, { signal: outer.signal }).signal.aborted).toBe(true);
    const deadline = createDeadline(1_000);
    deadline.dispose();
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe("a deadline on a given time", () => {
  it("reads that clock and aborts on that clock's timer, and within() stays on it", () => {
    const time = new TestTime();
    const deadline = createDeadline(1_000, { now: time.now, setTimer: time.setTimer });
    const child = deadline.within({ reserveMs: 300 });
    // Real time passing (the fake timers here) moves neither deadline.
    vi.advanceTimersByTime(5_000);
    expect(deadline.signal.aborted).toBe(false);
    expect(deadline.remainingMs()).toBe(1_000);
    time.advance(700);
    expect(child.signal.aborted).toBe(true);
    expect(child.expired()).toBe(true);
    expect(deadline.remainingMs()).toBe(300);
    expect(deadline.signal.aborted).toBe(false);
    deadline.dispose();
    time.advance(1_000);
    // Disposed: its timer on that time was cancelled, and none was left on real time.
    expect(deadline.signal.aborted).toBe(false);
    expect(time.pendingTimers).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("deadlineFromContext takes the context's remaining time on the given time", () => {
    const time = new TestTime(50_000);
    const deadline = deadlineFromContext({ getRemainingTimeInMillis: () => 2_000 }, { marginMs: 250, fallbackMs: 30_000, time });
    time.advance(1_749);
    expect(deadline.remainingMs()).toBe(1);
    expect(deadline.signal.aborted).toBe(false);
    time.advance(1);
    expect(deadline.signal.aborted).toBe(true);
  });
});

describe("deadlineFromContext", () => {
  it("takes the invocation's remaining time minus the answer margin", () => {
    const deadline = deadlineFromContext({ getRemainingTimeInMillis: () => 28_000 }, { marginMs: 250, fallbackMs: 30_000 });
    expect(deadline.remainingMs()).toBe(27_750);
    const fallback = deadlineFromContext({}, { marginMs: 250, fallbackMs: 1_000 });
    expect(fallback.remainingMs()).toBe(750);
  });
});
