import { describe, expect, it } from "vitest";
import * as z from "zod";
import { fetchResponseSchema } from "../../../../shared/fetch/schema";
import { extractorSchema, snapshotMetaSchema } from "../../../../shared/snapshot/snapshot-meta";

const STORED = {
  url: "https://example.com/",
  finalUrl: "https://example.com/a",
  redirects: [{ url: "https://example.com/", status: 301, location: "https://example.com/a" }],
  status: 200,
  contentType: "text/html",
  charset: "utf-8",
  title: "A",
  extractor: "readability",
};

describe("snapshot metadata schema", () => {
  it("reads a snapshot stored before `format` existed as Markdown, and keeps what later ones record", () => {
    expect(snapshotMetaSchema.parse(STORED).format).toBe("markdown");
    const later = snapshotMetaSchema.parse({ ...STORED, format: "text", rendered: true, renderTruncated: "render_wait", originTokens: 12, truncated: true });
    expect(later).toMatchObject({ format: "text", rendered: true, renderTruncated: "render_wait", originTokens: 12, truncated: true });
  });

  it.each([
    ["an unknown extractor", { extractor: "turndown" }],
    ["an unknown format", { format: "html" }],
    ["a redirect without its location", { redirects: [{ url: "https://example.com/", status: 301 }] }],
    ["a fractional redirect status", { redirects: [{ url: "https://example.com/", status: 301.5, location: "/" }] }],
    ["a negative token count", { originTokens: -1 }],
  ])("refuses %s (the page store then treats the snapshot as corrupt)", (_name, change) => {
    expect(snapshotMetaSchema.safeParse({ ...STORED, ...change }).success).toBe(false);
  });

  it("is where the /fetch response takes its extractor values and redirect fields from", () => {
    const response = z.toJSONSchema(fetchResponseSchema()) as { properties: Record<string, { anyOf?: { enum?: string[] }[]; items?: { properties: Record<string, unknown>; required: string[] } }> };
    const extractor = response.properties["extractor"]!.anyOf!.find((branch) => branch.enum !== undefined);
    expect(extractor?.enum).toEqual(extractorSchema.options);
    const hop = response.properties["redirects"]!.items!;
    expect(Object.keys(hop.properties).sort()).toEqual(Object.keys(snapshotMetaSchema.shape.redirects.def.element.shape).sort());
    // The API narrows the stored status to the redirect range its document promises.
    expect(hop.properties["status"]).toMatchObject({ minimum: 300, maximum: 399 });
  });
});
