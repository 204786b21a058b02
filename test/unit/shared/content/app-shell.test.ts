import { describe, expect, it } from "vitest";
import { APP_SHELL_MAX_TEXT, classifyUnreadableHtml, detectJsRequired } from "../../../../shared/content/app-shell";

const prose = "A paragraph a reader came for. ".repeat(10);

describe("detectJsRequired (application shells)", () => {
  it.each([
    ["an empty root element with a script bundle", '<html><head><script type="module" src="/assets/index-4f2a.js"></script></head><body><div id="root"></div></body></html>', true],
    ["an Angular-style custom root", '<body><app-root id="app"></app-root><script src="main.js"></script></body>', true],
    ["a loading placeholder with a bundle", '<body><div id="__next">Loading…</div><script src="/_next/chunk.js"></script></body>', false],
    ["a <noscript> asking for JavaScript", "<body><noscript>You need to enable JavaScript to run this app.</noscript><div id=app>Loading</div></body>", true],
    ["scripts and nothing visible at all", "<body><script>document.write('hi')</script></body>", true],
    ["an article with a bundle and an empty widget slot", `<body><article><p>${prose}</p></article><div id="comments"></div><script src="/c.js"></script></body>`, false],
    ["an article whose <noscript> mentions JavaScript", `<body><p>${prose}</p><noscript>Enable JavaScript for comments.</noscript></body>`, false],
    ["a static page with no scripts", "<body><div id=main></div><p>Short.</p></body>", false],
  ])("%s: %s", (_name, html, expected) => {
    expect(detectJsRequired(html)).toBe(expected);
  });

  it(`a page with more than ${APP_SHELL_MAX_TEXT} characters of text is never a shell`, () => {
    expect(detectJsRequired(`<div id="root"></div><script src="a.js"></script><p>${"x".repeat(APP_SHELL_MAX_TEXT + 1)}</p>`)).toBe(false);
    expect(detectJsRequired(`<div id="root"></div><script src="a.js"></script><p>${"x".repeat(APP_SHELL_MAX_TEXT)}</p>`)).toBe(true);
  });
});

describe("classifyUnreadableHtml", () => {
  it.each([
    ["", "empty_body"],
    ["<!-- only a comment -->", "empty_body"],
    ["<html><head><title>t</title><meta charset=utf-8></head><body></body></html>", "empty_body"],
    ['<div id="root"></div><script src="/app.js"></script>', "js_required"],
    ["<script>render()</script>", "js_required"],
    ['<p><img src="a.png"></p><form><input name=q></form>', "no_text"],
  ])("%j is %s", (html, reason) => {
    expect(classifyUnreadableHtml(html)).toBe(reason);
  });
});
