import { describe, expect, it } from "vitest";
import * as classic from "zod";
import * as z from "../../../shared/zod-mini";

const toJson = (schema: z.core.$ZodType) => z.toJSONSchema(schema, { target: "draft-2020-12", io: "input", unrepresentable: "any" });

describe("zod/mini as the functions use it", () => {
  it("describes a schema exactly as classic zod's .describe(): a clone, the original untouched", () => {
    const mini = z.optional(z.string().check(z.maxLength(5)));
    const cases: Array<[z.core.$ZodType, classic.ZodType]> = [
      [z.described(mini, "five at most"), classic.string().max(5).optional().describe("five at most")],
      [z.described(z._default(z.number().check(z.int(), z.gte(1)), 3), "a count"), classic.number().int().min(1).default(3).describe("a count")],
      [z.described(z.described(z.string(), "first"), "second"), classic.string().describe("first").describe("second")],
    ];
    for (const [ours, theirs] of cases) expect(toJson(ours)).toEqual(toJson(theirs));
    expect(z.globalRegistry.get(mini)).toBeUndefined();
    expect(toJson(mini)).not.toHaveProperty("description");
  });

  it("adds metadata exactly as classic zod's .meta()", () => {
    const meta = { anyOf: [{ type: "string" }, { type: "number" }], title: "either" };
    expect(toJson(z.withMeta(z.looseObject({}), meta))).toEqual(toJson(classic.looseObject({}).meta(meta)));
  });

  it("keeps zod's English messages for the issues the routes quote", () => {
    // Registered by shared/zod-mini.ts on import (in a process without classic zod too: the
    // bundling test runs such a bundle), or already by classic zod, which registers the same.
    expect(z.config().localeError).toBeDefined();
    const issues = (schema: z.core.$ZodType, value: unknown) => z.safeParse(schema, value).error?.issues.map((issue) => issue.message);
    expect(issues(z.object({ query: z.string() }), { query: 5 })).toEqual(["Invalid input: expected string, received number"]);
    expect(issues(z.enum(["a", "b"]), "c")).toEqual(['Invalid option: expected one of "a"|"b"']);
    expect(issues(z.string().check(z.minLength(2)), "x")).toEqual(issues(classic.string().min(2), "x"));
  });
});
