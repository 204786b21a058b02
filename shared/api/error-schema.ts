import { ERROR_CODES, type ErrorCode } from "../errors";
import * as z from "../zod-mini";

/** The error body every route answers with; the OpenAPI document is generated from it. */
export const errorBodySchema = z.object({
  error: z.catchall(
    z.object({
      code: z.described(z.enum(ERROR_CODES as [ErrorCode, ...ErrorCode[]]), "Stable machine-readable code; see the error table."),
      message: z.described(z.string(), "What went wrong, for a person. Never contains a resolved address or a secret."),
      retryable: z.described(z.boolean(), "Whether the same request may succeed later."),
      request_id: z.described(z.string(), "Identifies the request in the logs."),
      field: z.described(z.optional(z.nullable(z.string())), "invalid_request: the field at fault."),
      upstream_status: z.described(z.optional(z.number().check(z.int(), z.gte(100), z.lte(599))), "upstream_status: the origin's HTTP status."),
      retry_after_s: z.described(z.optional(z.number()), "provider_rate_limited: seconds to wait, when the provider said."),
    }),
    z.union([z.string(), z.number(), z.boolean(), z.null()]),
  ),
});

/** API Gateway's own answer to a missing or wrong API key (the local server imitates it). */
export const forbiddenBodySchema = z.strictObject({ message: z.literal("Forbidden") });
