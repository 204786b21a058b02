import { describe, expect, it } from "vitest";
import { MARKER_REPLACEMENT, neutralizeBoundaryMarkers } from "../../../../shared/content/neutralize";

describe("neutralizeBoundaryMarkers", () => {
  it.each([
    ["<web_result>", "‹web_result>"],
    ["</web_result>", "‹/web_result>"],
    ['<web_result source="x">', '‹web_result source="x">'],
    ["<WEB_RESULT>", "‹WEB_RESULT>"],
    ["</Web_Result >", "‹/Web_Result >"],
    ["< web_result>", "‹ web_result>"],
    ["</ web_result >", "‹/ web_result >"],
    ["< / web_result>", "‹ / web_result>"],
    ["<web\\_result>", "‹web\\_result>"],
    ["＜web_result＞", "‹web_result＞"],
    ["＜／ｗｅｂ＿ｒｅｓｕｌｔ＞", "‹／ｗｅｂ＿ｒｅｓｕｌｔ＞"],
    ["&lt;/web_result&gt;", "‹/web_result&gt;"],
    ["&#60;web_result>", "‹web_result>"],
    ["&#x3C;web_result>", "‹web_result>"],
    ["a </web_result> b <web_result> c", "a ‹/web_result> b ‹web_result> c"],
  ])("%j → %j", (input, output) => {
    expect(neutralizeBoundaryMarkers(input)).toBe(output);
  });

  it.each(["<web>", "<result>", "web_result", "<webresult>", "a < b", "<p>web_result</p>", "x<y_result"])("leaves %j alone", (input) => {
    expect(neutralizeBoundaryMarkers(input)).toBe(input);
  });

  it("is idempotent and leaves no `<web_result` in any case", () => {
    const once = neutralizeBoundaryMarkers("<Web_Result></WEB_RESULT>");
    expect(neutralizeBoundaryMarkers(once)).toBe(once);
    expect(once.toLowerCase()).not.toMatch(/<\s*\/?\s*web_result/);
    expect(once).toContain(MARKER_REPLACEMENT);
  });
});
