import { describe, expect, it } from "vitest";
import { ENV, loadConfig } from "../../../../shared/config";
import { renderBudget } from "../../../../shared/fetch/render-budget";

// Fetch limit 30 s, render wait 5 s.
const config = loadConfig({ [ENV.FETCH_TIMEOUT_MS]: "30000", [ENV.RENDER_WAIT_MS]: "5000" });

describe("renderBudget", () => {
  it.each([
    // budget, wait, load: the wait is at most a quarter, the load the rest less 2 s to read the DOM.
    ["no deadline: both configured limits", undefined, 5_000, 30_000],
    ["a roomy budget caps neither beyond its limit", 100_000, 5_000, 30_000],
    ["a 12 s budget: wait 3 s, load 7 s", 12_000, 3_000, 7_000],
    ["a 2 s budget: wait 0.5 s, load at least 1 ms", 2_000, 500, 1],
    ["an exhausted budget still asks for a 1 ms load and no wait", 0, 0, 1],
  ])("%s", (_name, budget, waitMs, timeoutMs) => {
    expect(renderBudget("https://example.com/", budget, config)).toEqual({ url: "https://example.com/", waitMs, timeoutMs });
  });

  it("never asks for more than the budget holds once the wait and the read reserve are counted", () => {
    for (let budget = 3_000; budget <= 60_000; budget += 1_000) {
      const { waitMs, timeoutMs } = renderBudget("https://example.com/", budget, config);
      expect(waitMs + timeoutMs + 2_000).toBeLessThanOrEqual(budget);
    }
  });
});
