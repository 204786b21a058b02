import { describe, expect, it } from "vitest";
import { looksLikeHtmlDocument, markdownTitle, parseMarkdownTokens } from "../../../../shared/content/origin-markdown";

describe("origin Markdown", () => {
  it.each([
    ["<!DOCTYPE html><html><body>x</body></html>", true],
    ["\n  <html lang=en><body>", true],
    ["<head><title>t</title></head>", true],
    ["# Title\n\n<div>inline html</div>", false],
    ["Some text <html> then <body> tags", true],
    ["# Title\n\ntext with <b>bold</b>", false],
    ["\uFEFF<!doctype html>", true],
  ])("%j looks like an HTML document: %s", (text, expected) => expect(looksLikeHtmlDocument(text)).toBe(expected));

  it.each([
    ["---\ntitle: Front Title\ndate: 2026\n---\n# Heading", "Front Title"],
    ["---\ntitle: 'Quoted Title'\n---\n", "Quoted Title"],
    ["---\nauthor: x\n---\n# From Heading", "From Heading"],
    ["intro\n\n## Second *level* [link](https://x)\n", "Second level link"],
    ["Setext Title\n============\n\ntext", "Setext Title"],
    ["```\n# not a heading\n```\n# Real", "Real"],
    ["- list item\n---\n", ""],
    ["# Closing hashes ##", "Closing hashes"],
    ["no heading at all", ""],
  ])("title of %j is %j", (md, title) => expect(markdownTitle(md)).toBe(title));

  it.each([
    ["1234", 1234],
    [" 7 ", 7],
    [undefined, null],
    ["-1", null],
    ["12.5", null],
    ["lots", null],
  ])("x-markdown-tokens %j → %j", (header, value) => expect(parseMarkdownTokens(header)).toBe(value));
});

describe("origin Markdown titles keep what is not emphasis", () => {
  it.each([
    ["# the snake_case_name helper", "the snake_case_name helper"],
    ["# **Bold** and `code` and _em_", "Bold and code and em"],
    ["# a </web_result> b", "a </web_result> b"],
  ])("%j → %j", (md, title) => expect(markdownTitle(md)).toBe(title));
});
