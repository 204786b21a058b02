import { describe, expect, it } from "vitest";
import { createDeadline } from "../../../../shared/deadline";
import { FIRST_ATTEMPT_SHARE, attemptTimeoutMs, remainingMs } from "../../../../shared/search/failover-budget";

describe("attemptTimeoutMs", () => {
  it.each([
    // remaining, fallback follows, limit → budget
    [undefined, true, 20_000, 20_000],
    [undefined, false, 20_000, 20_000],
    // Lambda 25 s less the 1 s margin: the first attempt gets 55%, under the provider limit.
    [24_000, true, 20_000, 13_200],
    // The fallback after a first attempt that used its 13.2 s: all that is left.
    [10_800, false, 20_000, 10_800],
    // A fast failure leaves most of the time: the fallback is capped by the provider limit.
    [23_500, false, 20_000, 20_000],
    [10_000, true, 3_000, 3_000],
    [1_001, true, 20_000, 550],
    [0, true, 20_000, 0],
    [-50, false, 20_000, 0],
    [999.9, false, 20_000, 999],
  ] as const)("remaining %s, fallback %s, limit %i → %i", (remaining, fallback, limit, expected) => {
    expect(attemptTimeoutMs({ remainingMs: remaining, fallbackFollows: fallback, limitMs: limit })).toBe(expected);
  });

  it("the first attempt and the fallback together never outlast the deadline", () => {
    for (let remaining = 0; remaining <= 40_000; remaining += 250) {
      const first = attemptTimeoutMs({ remainingMs: remaining, fallbackFollows: true, limitMs: 20_000 });
      const second = attemptTimeoutMs({ remainingMs: remaining - first, fallbackFollows: false, limitMs: 20_000 });
      expect(first + second).toBeLessThanOrEqual(remaining);
      expect(first).toBeLessThanOrEqual(Math.ceil(remaining * FIRST_ATTEMPT_SHARE));
      // The fallback always has at least as much time as the first attempt had, up to the limit.
      expect(second).toBeGreaterThanOrEqual(Math.min(first * (1 - FIRST_ATTEMPT_SHARE) / FIRST_ATTEMPT_SHARE - 1, 20_000));
    }
  });

  it("takes another share when given", () => {
    expect(attemptTimeoutMs({ remainingMs: 10_000, fallbackFollows: true, limitMs: 20_000, firstShare: 0.5 })).toBe(5_000);
  });
});

describe("remainingMs", () => {
  it("reads the request deadline (a fake clock here), undefined without one", () => {
    const clock = { t: 1_000 };
    const deadline = { remainingMs: () => Math.max(0, 5_000 - clock.t) };
    expect(remainingMs(deadline)).toBe(4_000);
    clock.t = 6_000;
    expect(remainingMs(deadline)).toBe(0);
    expect(remainingMs(undefined)).toBeUndefined();
  });

  it("plugs into shared/deadline.ts's Deadline", () => {
    const deadline = createDeadline(10_000, { now: () => 0 });
    expect(remainingMs(deadline)).toBe(10_000);
    expect(attemptTimeoutMs({ remainingMs: remainingMs(deadline), fallbackFollows: true, limitMs: 20_000 })).toBe(5_500);
    deadline.dispose();
  });
});
