/**
 * The MCP tools' input and output schemas, derived from the REST contracts (pure core):
 *
 * - input: the /fetch and /search request schemas themselves, with their rules and defaults, so a
 *   field added to either (format, render, domain filters…) appears in `tools/list` by itself;
 *   fields without a description get the one below, for the model.
 * - output: the /fetch (or /search) 200 body OR the tool error object `{ code, message,
 *   retryable, request_id, … }`. The MCP specification says structured results MUST conform to
 *   the output schema, and the SDK's v1.x client checks an error result's `structuredContent`
 *   against it too (it throws -32602 otherwise), so the advertised schema names both shapes.
 */
import * as z from "../zod-mini";
import { errorBodySchema } from "../api/error-schema";
import { fetchRequestSchema, fetchResponseSchema } from "../fetch/schema";
import { searchRequestSchema, searchResponseSchema } from "../search/schema";

const FETCH_FIELD_HELP: Record<string, string> = {
  url: "The http(s) URL to read. Private, loopback and cloud-metadata addresses are refused, as are non-web schemes (file:, ftp:…).",
  start: "Character offset to start from (0 = the beginning). To read on, pass the previous answer's next_start here.",
  max_chars: "At most this many characters of content per call.",
  max_age: "Accept a stored snapshot up to this many seconds old; 0 fetches the page anew.",
  snapshot_id: "The snapshot id of an earlier answer: keeps every page of a long read from the same snapshot. Pass it with start.",
  main_content: "true: the main article only (navigation and boilerplate dropped); false: the whole page.",
};

const SEARCH_FIELD_HELP: Record<string, string> = {
  query: "What to search the web for (2 to 400 characters). Never put keys or passwords in a query.",
  max_results: "How many results to return.",
  provider: "A specific configured search provider; by default the server's first configured one (with one failover).",
};

/** The object schema with `help` added to every field that has no description of its own. */
function withHelp<T extends z.ZodMiniObject>(schema: T, help: Record<string, string>): T {
  const shape: Record<string, z.core.$ZodType> = {};
  const fields: Record<string, z.core.$ZodType> = schema.shape;
  for (const [name, field] of Object.entries(fields)) {
    const text = help[name];
    shape[name] = z.globalRegistry.get(field)?.description === undefined && text !== undefined ? z.described(field, text) : field;
  }
  // Same fields, rules and defaults: `safeExtend` clones the schema with the new shape and keeps its
  // strictness (unknown fields refused) and refinements, so the tool accepts exactly what the route accepts.
  const base: z.ZodMiniObject = schema;
  return z.safeExtend(base, shape) as unknown as T;
}

export const webFetchInputSchema = withHelp(fetchRequestSchema, FETCH_FIELD_HELP);
export const webSearchInputSchema = withHelp(searchRequestSchema, SEARCH_FIELD_HELP);

/** `structuredContent` of a failed tool call: the REST error object (same codes, same fields). */
export const toolErrorSchema = errorBodySchema.shape.error;

export type ToolError = z.infer<typeof toolErrorSchema>;

/** JSON Schema (draft-07, the dialect the SDK advertises tool schemas in) of one branch. */
function branch(schema: z.core.$ZodType): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { target: "draft-7", io: "output", unrepresentable: "any" }) as Record<string, unknown>;
  delete json.$schema;
  return json;
}

/**
 * An object schema that accepts exactly `success` or {@link toolErrorSchema}: the SDK only takes
 * object schemas as output schemas, so the union is an open object refined by the union (what the
 * server checks) and described by an `anyOf` of both branches (what `tools/list` shows).
 */
function successOrError(success: z.core.$ZodType): z.ZodMiniType {
  const union = z.union([success, toolErrorSchema]);
  return z.withMeta(
    z.looseObject({}).check((ctx) => {
      const result = union.safeParse(ctx.value);
      if (!result.success) {
        ctx.issues.push({ code: "custom", message: "neither the tool's result nor a tool error", input: ctx.value });
      }
    }),
    { anyOf: [branch(success), branch(toolErrorSchema)] },
  );
}

export const webFetchOutputSchema = successOrError(fetchResponseSchema());
export const webSearchOutputSchema = successOrError(searchResponseSchema);
