import { describe, expect, it } from "vitest";
import { braveResetSeconds } from "../../../../shared/search/brave";

describe("braveResetSeconds", () => {
  it.each([
    ["the per-second window is used up", { "x-ratelimit-remaining": "0, 14000", "x-ratelimit-reset": "1, 1419704" }, 1],
    ["the monthly quota is used up", { "x-ratelimit-remaining": "1, 0", "x-ratelimit-reset": "1, 1419704" }, 1419704],
    ["both are used up", { "x-ratelimit-remaining": "0, 0", "x-ratelimit-reset": "1, 86400" }, 86400],
    ["no remaining header", { "x-ratelimit-reset": "3, 500" }, 3],
    ["no reset header", { "x-ratelimit-remaining": "0, 0" }, undefined],
    ["garbage", { "x-ratelimit-reset": "soon" }, undefined],
  ])("%s", (_label, headers, expected) => {
    expect(braveResetSeconds(headers)).toBe(expected);
  });
});
