/**
 * The conversion's time budget, checked cooperatively: a deadline whose clock the test drives
 * (each look at it advances the clock by one step), so nothing here depends on how fast this
 * machine converts.
 */
import { describe, expect, it } from "vitest";
import { CHECK_EVERY, WorkMeter, type ConversionDeadline } from "../../../../shared/content/conversion-deadline";
import { renderDocument } from "../../../../shared/content/render";
import { MAIN_CONTENT_PRUNED, extractMainContent } from "../../../../shared/content/extract/main-content";
import { parseLightDocument } from "../../../../shared/content/light-dom";
import { ORDINARY_SHAPE, PATHOLOGICAL_SHAPES } from "../../../../scripts/lib/cost-shapes";
import { WebgateError } from "../../../../shared/errors";

const utf8 = (s: string) => new TextEncoder().encode(s);
const URL_ = "https://example.com/a.html";

/** A deadline `budget` steps away on a clock that advances one step per look. */
function steppingDeadline(budget: number): ConversionDeadline & { looks: number } {
  const deadline = {
    looks: 0,
    expired: () => ++deadline.looks > budget,
  };
  return deadline;
}

function tooComplex(run: () => unknown): WebgateError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(WebgateError);
    const e = error as WebgateError;
    expect({ code: e.code, status: e.status, retryable: e.retryable, details: e.details }).toEqual({
      code: "content_too_complex",
      status: 502,
      retryable: false,
      details: { reason: "conversion_time_limit" },
    });
    return e;
  }
  throw new Error("expected content_too_complex");
}

const ARTICLE = `<html><head><title>Rivers</title></head><body><article><h1>Rivers</h1>${"<p>A river is a natural stream of water that flows in a channel toward the sea, a lake or another river.</p>".repeat(8)}</article></body></html>`;

describe("WorkMeter", () => {
  it("looks at the deadline once every CHECK_EVERY units, and at every explicit check", () => {
    const deadline = steppingDeadline(Number.POSITIVE_INFINITY);
    const meter = new WorkMeter(deadline);
    for (let i = 0; i < CHECK_EVERY * 3 - 1; i++) meter.tick();
    expect(deadline.looks).toBe(2);
    meter.tick();
    expect(deadline.looks).toBe(3);
    meter.check();
    expect(deadline.looks).toBe(4);
  });

  it("throws content_too_complex at the first checkpoint past the deadline, never without one", () => {
    const meter = new WorkMeter(steppingDeadline(2), 10);
    for (let i = 0; i < 20; i++) meter.tick();
    tooComplex(() => {
      for (let i = 0; i < 10; i++) meter.tick();
    });
    const unbounded = new WorkMeter(undefined, 1);
    for (let i = 0; i < 10_000; i++) unbounded.tick();
  });
});

describe("renderDocument within a deadline", () => {
  it("an expired deadline stops any HTML conversion, in both modes and formats", () => {
    for (const mainContent of [true, false]) {
      for (const format of ["markdown", "text"] as const) {
        tooComplex(() => renderDocument({ body: utf8(ARTICLE), contentType: "text/html", finalUrl: URL_, mainContent, format, deadline: steppingDeadline(0) }));
      }
    }
  });

  it("a deadline that holds changes nothing in the output", () => {
    for (const mainContent of [true, false]) {
      const plain = renderDocument({ body: utf8(ARTICLE), contentType: "text/html", finalUrl: URL_, mainContent });
      const bounded = renderDocument({ body: utf8(ARTICLE), contentType: "text/html", finalUrl: URL_, mainContent, deadline: steppingDeadline(Number.POSITIVE_INFINITY) });
      expect(bounded).toEqual(plain);
    }
  });

  it.each(PATHOLOGICAL_SHAPES.map((shape) => [shape.name, shape] as const))(
    "a crafted page (%s, 1 MB) stops at the first checkpoint past a small budget, which an ordinary page converts within",
    (_name, shape) => {
      const BUDGET = 20;
      for (const mainContent of [false, true]) {
        const deadline = steppingDeadline(BUDGET);
        tooComplex(() => renderDocument({ body: utf8(shape.make(1_000_000)), contentType: "text/html", finalUrl: URL_, mainContent, deadline }));
        // Stopped where the deadline was first seen to have passed: no work went on after it.
        expect(deadline.looks).toBe(BUDGET + 1);
        const ordinary = renderDocument({ body: utf8(ORDINARY_SHAPE.make(10_000)), contentType: "text/html", finalUrl: URL_, mainContent, deadline: steppingDeadline(BUDGET) });
        expect(ordinary.content).toContain("# Rivers of the world");
      }
    },
  );

  it("a deadline that passes after the parse stops before the Markdown is written", () => {
    // Looks: before the parse, after it; the second one is past the budget.
    tooComplex(() => renderDocument({ body: utf8(ARTICLE), contentType: "text/html", finalUrl: URL_, mainContent: false, deadline: steppingDeadline(1) }));
  });
});

describe("checkpoints inside the main-content extraction", () => {
  const parse = () => parseLightDocument(ORDINARY_SHAPE.make(300_000), { pruned: MAIN_CONTENT_PRUNED }).body;
  const elements = parse().getElementsByTagName("*").length;

  it("the extraction looks at the deadline as it walks the page: at least once per CHECK_EVERY elements", () => {
    const deadline = steppingDeadline(Number.POSITIVE_INFINITY);
    const { element } = extractMainContent(parse(), { title: "Rivers of the world", meter: new WorkMeter(deadline) });
    expect(element).not.toBeNull();
    expect(deadline.looks).toBeGreaterThanOrEqual(Math.floor(elements / CHECK_EVERY));
  });

  it("stops at the first look past the deadline, from inside the extraction", () => {
    const deadline = steppingDeadline(2);
    tooComplex(() => extractMainContent(parse(), { title: "Rivers of the world", meter: new WorkMeter(deadline) }));
    expect(deadline.looks).toBe(3);
  });
});
