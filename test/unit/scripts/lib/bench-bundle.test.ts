import { describe, expect, it } from "vitest";
import { topContributors } from "../../../../scripts/lib/bench-bundle";

describe("topContributors", () => {
  it("groups metafile inputs by package (scoped included) or repository folder, largest first", () => {
    const inputs = {
      "node_modules/zod/v4/core/core.js": { bytesInOutput: 300 },
      "node_modules/zod/v4/classic/schemas.js": { bytesInOutput: 200 },
      "node_modules/@aws-sdk/core/dist-es/index.js": { bytesInOutput: 400 },
      "node_modules/linkedom/node_modules/htmlparser2/lib/index.js": { bytesInOutput: 50 },
      "shared/content/render.ts": { bytesInOutput: 30 },
      "shared/content/decode.ts": { bytesInOutput: 20 },
      "functions/fetch/handler.ts": { bytesInOutput: 1 },
    };
    expect(topContributors(inputs, 3)).toEqual([
      { source: "zod", bytes: 500 },
      { source: "@aws-sdk/core", bytes: 400 },
      { source: "linkedom", bytes: 50 },
    ]);
    expect(topContributors(inputs, 10).find((t) => t.source === "shared/content")).toEqual({ source: "shared/content", bytes: 50 });
  });
});
