/**
 * The /fetch request contract. The same schema validates a POST body and a GET query string
 * (whose values arrive as strings and are converted by {@link fromQuery} first), so both forms
 * accept exactly the same requests.
 */
import * as z from "../zod-mini";
import { once } from "../once";
import { OUTPUT_FORMATS, extractorSchema, redirectHopSchema } from "../snapshot/snapshot-meta";

export const FETCH_LIMITS = {
  maxCharsMin: 1_000,
  maxCharsMax: 100_000,
  maxCharsDefault: 30_000,
  maxAgeMax: 86_400,
  maxAgeDefault: 600,
} as const;

/** The `render` modes; see the field's description. */
export const RENDER_MODES = ["never", "always", "auto"] as const;
export type RenderMode = (typeof RENDER_MODES)[number];
export const DEFAULT_RENDER_MODE: RenderMode = "never";

export const fetchRequestSchema = z.strictObject({
  url: z.string({ error: "must be a string" }).check(z.minLength(1, "must not be empty")),
  start: z._default(z.number({ error: "must be a number" }).check(z.int("must be a whole number"), z.gte(0, "must be 0 or more")), 0),
  max_chars: z._default(
    z
      .number({ error: "must be a number" })
      .check(
        z.int("must be a whole number"),
        z.gte(FETCH_LIMITS.maxCharsMin, `must be at least ${FETCH_LIMITS.maxCharsMin}`),
        z.lte(FETCH_LIMITS.maxCharsMax, `must be at most ${FETCH_LIMITS.maxCharsMax}`),
      ),
    FETCH_LIMITS.maxCharsDefault,
  ),
  max_age: z._default(
    z
      .number({ error: "must be a number" })
      .check(z.int("must be a whole number"), z.gte(0, "must be 0 or more"), z.lte(FETCH_LIMITS.maxAgeMax, `must be at most ${FETCH_LIMITS.maxAgeMax}`)),
    FETCH_LIMITS.maxAgeDefault,
  ),
  snapshot_id: z.optional(
    z.string({ error: "must be a string" }).check(z.regex(/^[A-Za-z0-9_-]{1,64}$/, "must be a snapshot id returned by an earlier /fetch")),
  ),
  main_content: z._default(z.boolean({ error: "must be true or false" }), true),
  format: z.described(
    z._default(z.enum(OUTPUT_FORMATS, { error: 'must be "markdown" or "text"' }), "markdown"),
    'How HTML is written: "markdown", or "text" (plain text: no Markdown syntax, link text without targets, no images, list items and table cells as lines, paragraphs separated by a blank line). Other content types pass through as they are.',
  ),
  render: z.described(
    z._default(z.enum(RENDER_MODES, { error: `must be one of ${RENDER_MODES.map((m) => `"${m}"`).join(", ")}` }), DEFAULT_RENDER_MODE),
    'Run the page in a headless browser held to the same guard: "never" (the plain fetch), "always", or "auto" (render only when the plain fetch finds an application shell whose text scripts write, no_readable_content with reason js_required). A rendered snapshot is its own snapshot.',
  ),
});

export type FetchRequest = z.infer<typeof fetchRequestSchema>;

const NUMERIC_FIELDS = new Set(["start", "max_chars", "max_age"]);
const BOOLEAN_FIELDS = new Set(["main_content"]);

/**
 * Query-string values are strings: whole decimal numbers and `true`/`false` become numbers and
 * booleans; anything else stays a string so the schema reports the field's type error.
 */
export function fromQuery(query: Record<string, string>): Record<string, unknown> {
  // fromEntries defines each key as an own property: an assignment `out["__proto__"] = …` would
  // set the prototype instead and drop the parameter before the schema could refuse it.
  return Object.fromEntries(
    Object.entries(query).map(([name, value]): [string, unknown] => {
      if (NUMERIC_FIELDS.has(name) && /^-?\d{1,15}$/.test(value)) return [name, Number(value)];
      if (BOOLEAN_FIELDS.has(name) && (value === "true" || value === "false")) return [name, value === "true"];
      return [name, value];
    }),
  );
}

const wholeAtLeast0 = () => z.number().check(z.int(), z.gte(0));

const redirectHopResponseSchema = once(() =>
  z.extend(redirectHopSchema, {
    status: z.described(z.number().check(z.int(), z.gte(300), z.lte(399)), "Its redirect status (301, 302, 303, 307 or 308)."),
  }),
);

/**
 * The 200 answer of /fetch. The OpenAPI document and the MCP tool's output schema are generated
 * from this schema; a request never parses it, so it is built on first use, not at every cold start.
 */
export const fetchResponseSchema = once(() => z.strictObject({
  url: z.described(z.string(), "The requested URL as the guard normalized it (http upgraded to https, fragment dropped)."),
  final_url: z.described(z.string(), "The URL the content came from, after redirects."),
  redirects: z.described(z.array(redirectHopResponseSchema()), "Every redirect followed, in order."),
  status: z.described(z.number().check(z.int(), z.gte(200), z.lte(299)), "The origin's HTTP status for the final URL (2xx: other statuses are errors)."),
  content_type: z.described(z.string(), "The media type the content was read as."),
  charset: z.described(z.string(), "The WHATWG encoding used to decode the body."),
  title: z.described(z.string(), "The page title (HTML `<title>`), or empty."),
  extractor: z.described(
    z.nullable(extractorSchema),
    "How the content was made: HTML as the extracted article (`readability`) or the whole page (`full`), a PDF's text (`pdf`), Markdown the site served itself (`origin-markdown`), or null for other text.",
  ),
  truncated: z.described(
    z.boolean(),
    "True when a limit cut the content, which then ends with a note saying why: a PDF longer than `WEBGATE_PDF_MAX_PAGES` gives its first pages; HTML nested deeper than 400 elements is flattened below that depth (its text kept, its structure not); a rendered page that had not settled within `WEBGATE_RENDER_WAIT_MS`, or ran out of its byte, connection or navigation budget, gives what the browser had rendered by then.",
  ),
  origin_tokens: z.described(z.nullable(wholeAtLeast0()), "The site's own token count of a Markdown answer (its `x-markdown-tokens` header), else null."),
  format: z.described(z.enum(OUTPUT_FORMATS), "The format the snapshot was written in (the request's `format`); a snapshot belongs to its url, main_content and format."),
  total_chars: z.described(wholeAtLeast0(), "Length of the whole snapshot content in UTF-16 code units."),
  start: wholeAtLeast0(),
  end: wholeAtLeast0(),
  next_start: z.described(z.nullable(wholeAtLeast0()), "`end` while more content is left; null on the last page."),
  content: z.described(z.string(), "The snapshot content from `start` to `end` (Markdown or plain text for HTML, per `format`)."),
  snapshot: z.strictObject({
    id: z.described(z.string(), "Pass as `snapshot_id` to read further pages of exactly this snapshot."),
    sha256: z.described(z.string().check(z.regex(/^[0-9a-f]{64}$/)), "Lowercase hex SHA-256 of the whole content's UTF-8 bytes."),
    fetched_at: z.described(z.string(), "When the origin was fetched (ISO 8601)."),
    age_s: z.described(wholeAtLeast0(), "Seconds since `fetched_at`."),
  }),
  rendered: z.described(z.boolean(), "True when the content is the DOM a headless browser built (`render`); false for the origin's bytes as fetched."),
  cache: z.described(z.enum(["hit", "miss", "bypass"]), "hit: served from a stored snapshot; miss: fetched and stored; bypass: fetched, the store being unavailable."),
  warnings: z.described(
    z.optional(z.array(z.string())),
    "Present when something about the request deserves a look; `url_looks_like_secret`: the URL's path or query looks like it carries a key or token (WEBGATE_URL_SECRET_CHECK=flag).",
  ),
}));

export type FetchResponse = z.infer<ReturnType<typeof fetchResponseSchema>>;
