import { describe, expect, it } from "vitest";
import { markdownToText } from "../../../../shared/content/markdown-text";

describe("markdownToText", () => {
  it("keeps the words and drops the syntax", () => {
    const md = [
      "---",
      "title: Front",
      "---",
      "# Heading *one*",
      "",
      "Some **bold**, _em_, `code` and a [link](https://example.com/x) plus ![img](a.png).",
      "",
      "- item one",
      "* [x] done item",
      "1. first",
      "",
      "> quoted line",
      "",
      "```js",
      "const a_b = 1; // **not bold**",
      "```",
      "",
      "| a | b |",
      "|---|:-:|",
      "| 1 | 2 |",
      "",
      "Setext",
      "======",
      "",
      "***",
      "snake_case_name stays, \\*escaped\\* too <https://x.example/>.",
      "[ref]: https://example.com/ref",
    ].join("\n");
    expect(markdownToText(md)).toBe(
      [
        "Heading one",
        "",
        "Some bold, em, code and a link plus .",
        "",
        "item one",
        "done item",
        "first",
        "",
        "quoted line",
        "",
        "const a_b = 1; // **not bold**",
        "",
        "a b",
        "1 2",
        "",
        "Setext",
        "",
        "snake_case_name stays, *escaped* too https://x.example/.",
        "",
      ].join("\n"),
    );
  });
});
