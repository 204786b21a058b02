import * as z from "zod";
import { ERROR_CODES, type ErrorCode } from "../errors";

/** The error body every route answers with; the OpenAPI document is generated from it. */
export const errorBodySchema = z.object({
  error: z
    .object({
      code: z.enum(ERROR_CODES as [ErrorCode, ...ErrorCode[]]).describe("Stable machine-readable code; see the error table."),
      message: z.string().describe("What went wrong, for a person. Never contains a resolved address or a secret."),
      retryable: z.boolean().describe("Whether the same request may succeed later."),
      request_id: z.string().describe("Identifies the request in the logs."),
      field: z.string().nullable().optional().describe("invalid_request: the field at fault."),
      upstream_status: z.number().int().min(100).max(599).optional().describe("upstream_status: the origin's HTTP status."),
      retry_after_s: z.number().optional().describe("provider_rate_limited: seconds to wait, when the provider said."),
    })
    .catchall(z.union([z.string(), z.number(), z.boolean(), z.null()])),
});

/** API Gateway's own answer to a missing or wrong API key (the local server imitates it). */
export const forbiddenBodySchema = z.strictObject({ message: z.literal("Forbidden") });
