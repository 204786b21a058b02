/**
 * zod for the schemas the Lambda functions build and parse: zod 4's tree-shakable API
 * (`zod/mini`, the same package and the same core as `zod`), with zod's English messages.
 *
 * The classic API (`import * as z from "zod"`) gives every schema some forty methods, and each
 * method pulls in the code behind it (the JSON Schema generator among it): ~60 KB of every
 * function bundle, which each cold start reads, compiles and maps for the source map. The
 * functional form here builds the same core schemas (`z.optional(s)` is `s.optional()`, a check
 * is `s.check(z.regex(…))` where classic writes `s.regex(…)`), so parsing, issues and the JSON
 * Schema of a schema are the classic ones (docs/performance.md, Function bundles). The classic
 * API still works on these schemas from the outside: `z.toJSONSchema`, the CDK settings' schemas
 * (infra/environments.ts) and the MCP SDK take them as they are.
 *
 * Two things classic does that mini leaves to its user, done here as classic does them:
 * - the English messages: classic registers zod's `en` locale when it builds its first schema,
 *   mini never does (its default message is "Invalid input"). Request errors quote these
 *   messages ("Invalid input: expected string, received number"), so this module registers the
 *   same locale on import, unless one is registered already (as classic leaves a chosen locale).
 * - `.describe(text)` and `.meta(data)`: {@link described} and {@link withMeta} are classic's
 *   methods, a clone registered with the metadata in the global registry (what `z.toJSONSchema`
 *   writes as `description` and the other keywords).
 *
 * Classic also installs its cycle-aware memoizer for containers; it matters only for recursive
 * schemas parsing cyclic values, and none of these schemas is recursive (their inputs are JSON
 * or environment strings), so it is left out.
 */
// The one locale by name: `z.locales.en` would keep all of zod's locales in a bundle.
import { en } from "zod/locales";
import * as z from "zod/mini";

if (!z.config().localeError) z.config(en());

export * from "zod/mini";

/** `schema` with `metadata` (classic zod's `schema.meta(metadata)`): a clone registered with it. */
export function withMeta<T extends z.core.$ZodType>(schema: T, metadata: z.core.GlobalMeta): T {
  const clone = z.clone(schema);
  z.globalRegistry.add(clone, metadata);
  return clone;
}

/** `schema` with `description` (classic zod's `schema.describe(description)`). */
export function described<T extends z.core.$ZodType>(schema: T, description: string): T {
  return withMeta(schema, { description });
}
