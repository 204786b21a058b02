/**
 * The snapshot domain: what a fetch learned about a page, in one zod schema from which every
 * type is derived (`z.infer`). The page store validates stored metadata with it, the /fetch
 * response schema reuses its parts (so the OpenAPI document describes the same values), and the
 * guard, the renderer and the content pipeline name their results with its types. Pure: zod only
 * (its tree-shakable form, shared/zod-mini.ts: the page store reads it on every cache hit).
 */
import * as z from "../zod-mini";

/**
 * How the content was made: HTML as the extracted article (`readability`) or the whole page
 * (`full`), a PDF's text (`pdf`), Markdown the site served itself (`origin-markdown`).
 */
export const extractorSchema = z.enum(["readability", "full", "pdf", "origin-markdown"]);
export type Extractor = z.infer<typeof extractorSchema>;

/** The formats HTML can be written in; a snapshot belongs to its format. */
export const OUTPUT_FORMATS = ["markdown", "text"] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/**
 * One redirect a fetch followed. The status is any whole number here, as stored snapshots and the
 * render function's answers have always been read (a browser hop without a response records 0);
 * the /fetch response schema narrows it to the 3xx range its document promises.
 */
export const redirectHopSchema = z.object({
  url: z.described(z.string(), "The URL that answered with a redirect."),
  status: z.number().check(z.int()),
  location: z.described(z.string(), "Where it pointed, resolved against `url`."),
});
export type RedirectHop = z.infer<typeof redirectHopSchema>;

/**
 * What the fetch learned about the page; stored with the snapshot (as JSON, validated by this
 * schema on every read) and returned on every hit. Optional fields are absent in older snapshots.
 */
export const snapshotMetaSchema = z.object({
  url: z.string(),
  finalUrl: z.string(),
  redirects: z.array(redirectHopSchema),
  status: z.number(),
  contentType: z.string(),
  charset: z.string(),
  title: z.string(),
  /** How the content was made; `pdf` and `origin-markdown` record the representation it came from. */
  extractor: z.nullable(extractorSchema),
  /** True when a limit (the PDF page cap) cut the content. */
  truncated: z.optional(z.boolean()),
  /** The origin's own token count (`x-markdown-tokens`) of a Markdown answer. */
  originTokens: z.optional(z.nullable(z.number().check(z.int(), z.gte(0)))),
  /** The format HTML was written in (part of the snapshot key too). Snapshots written before `format` existed were Markdown. */
  format: z._default(z.enum(OUTPUT_FORMATS), "markdown"),
  /** True when the content came from a DOM the headless browser built (`render`); absent: false. */
  rendered: z.optional(z.boolean()),
  /** Why a rendered DOM was read before the page settled (see RenderTruncation); null or absent: it settled. */
  renderTruncated: z.optional(z.nullable(z.string())),
});
export type SnapshotMeta = z.infer<typeof snapshotMetaSchema>;
