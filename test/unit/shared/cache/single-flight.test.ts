import { describe, expect, it } from "vitest";
import { createDeadline } from "../../../../shared/deadline";
import { SingleFlight, untilDeadline } from "../../../../shared/cache/single-flight";
import { expectWebgateError } from "../../../helpers/expect-error";

/** A promise settled by hand. */
function later<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe("SingleFlight", () => {
  it("runs one call per key while it runs, and a new one once it settled", async () => {
    const flight = new SingleFlight<string>();
    let starts = 0;
    const pending = later<string>();
    const start = () => {
      starts += 1;
      return pending.promise;
    };
    const first = flight.run("k", start);
    const second = flight.run("k", start);
    const other = flight.run("other", () => Promise.resolve("o"));
    expect(second).toBe(first);
    expect(flight.current("k")).toBe(first);
    pending.resolve("v");
    expect(await Promise.all([first, second, other])).toEqual(["v", "v", "o"]);
    expect(starts).toBe(1);
    expect(flight.current("k")).toBeUndefined();
    await flight.run("k", () => Promise.resolve("again"));
    expect(starts).toBe(1);
  });

  it("hands one failure to every sharer and forgets the key", async () => {
    const flight = new SingleFlight<string>();
    const pending = later<string>();
    const a = flight.run("k", () => pending.promise);
    const b = flight.run("k", () => Promise.resolve("never started"));
    const failure = new Error("boom");
    pending.reject(failure);
    await expect(a).rejects.toBe(failure);
    await expect(b).rejects.toBe(failure);
    expect(flight.current("k")).toBeUndefined();
  });

  it("begin registers exactly the promise its caller awaits, and refuses a second one for a running key", async () => {
    const flight = new SingleFlight<{ v: number }>();
    const mine = flight.begin("k", Promise.resolve({ v: 1, extra: "mine" }));
    expect(flight.current("k")).toBe(mine);
    expect(() => flight.begin("k", Promise.resolve({ v: 2 }))).toThrow(/already running/);
    expect((await mine).extra).toBe("mine");
  });
});

describe("untilDeadline", () => {
  it("passes the promise's outcome through while the deadline lasts, and needs none", async () => {
    const deadline = createDeadline(5_000);
    await expect(untilDeadline(Promise.resolve(3), deadline)).resolves.toBe(3);
    await expect(untilDeadline(Promise.reject(new Error("x")), deadline)).rejects.toThrow("x");
    await expect(untilDeadline(Promise.resolve(4), undefined)).resolves.toBe(4);
    deadline.dispose();
  });

  it("stops at the deadline with upstream_timeout and leaves the promise to its other waiters", async () => {
    const controller = new AbortController();
    const deadline = createDeadline(60_000, { signal: controller.signal });
    const pending = later<string>();
    const waiting = untilDeadline(pending.promise, deadline);
    controller.abort();
    expect((await expectWebgateError(waiting)).code).toBe("upstream_timeout");
    pending.resolve("still delivered");
    await expect(pending.promise).resolves.toBe("still delivered");
    expect((await expectWebgateError(untilDeadline(Promise.resolve(1), deadline))).code).toBe("upstream_timeout");
    deadline.dispose();
  });
});
