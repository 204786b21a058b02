import { describe, expect, it } from "vitest";
import { RENDER_TRUNCATIONS, renderTruncationNote, withTruncationNote } from "../../../../shared/render/renderer";

describe("the note a truncated render ends with", () => {
  it.each(RENDER_TRUNCATIONS)("names %s and what it means, as a Markdown comment or a text line", (reason) => {
    const markdown = renderTruncationNote(reason, "markdown");
    expect(markdown).toMatch(new RegExp(`^<!-- truncated: ${reason}: [^\\n]+; this is what it had rendered by then -->$`));
    expect(markdown.slice(4, -4)).not.toContain("--");
    expect(renderTruncationNote(reason, "text")).toBe(`[truncated: ${markdown.slice("<!-- truncated: ".length, -" -->".length)}]`);
  });

  it.each([
    ["# Title\n\nText.\n", "# Title\n\nText.\n\n<!-- truncated: render_wait:"],
    ["Text.", "Text.\n\n<!-- truncated: render_wait:"],
    ["Text.\n\n\n\n", "Text.\n\n<!-- truncated: render_wait:"],
    ["", "\n\n<!-- truncated: render_wait:"],
  ])("appends it as the last paragraph of %j", (content, start) => {
    const out = withTruncationNote(content, "render_wait", "markdown");
    expect(out.startsWith(start)).toBe(true);
    expect(out.endsWith(" -->\n")).toBe(true);
  });

  it("trims only the trailing line breaks, keeping a long run inside", () => {
    const content = `a${"\n".repeat(200_000)}b${"\n".repeat(200_000)}`;
    const out = withTruncationNote(content, "render_bytes", "text");
    expect(out.startsWith(`a${"\n".repeat(200_000)}b\n\n[truncated: render_bytes:`)).toBe(true);
  });
});
