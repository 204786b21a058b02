import path from "node:path";
import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { QUALITY_GOAL_F } from "../../scripts/lib/bench-quality";
import { evaluate, isHoldout, loadEvalSet } from "../../scripts/lib/extraction-eval";
import { findSharedDir } from "../../scripts/lib/shared-dir";
import { webgateMainContentText } from "../../scripts/lib/webgate-text";

// `npm run test:quality`: main-content extraction scored on the 990 labelled pages of
// ../shared/extraction-eval exactly as its README says (segment P/R/F over plain text).
// The folder ships beside the repo, not in it: without it the suite skips with a notice.

/**
 * The floor this suite holds: issue 17's goal {@link QUALITY_GOAL_F}, reached on 2026-12-01 (full set F 0.9317
 * through `format: "text"`, P 0.923, R 0.941). `npm run bench` reports the figures beside the other extractors.
 */
const QUALITY_FLOOR_F = QUALITY_GOAL_F;

const shared = findSharedDir();
const folder = shared === null ? null : path.join(shared, "extraction-eval");
const present = folder !== null && existsSync(path.join(folder, "evaldata.json"));
if (!present) console.warn("[quality tests skipped] no ../shared/extraction-eval beside the repo (set WEBGATE_SHARED_DIR)");

describe.skipIf(!present)("main content on the labelled extraction set", () => {
  const pages = present ? loadEvalSet(folder) : [];

  it(`holds segment F >= ${QUALITY_FLOOR_F} over all pages, and never fails a page`, () => {
    expect(pages.length).toBe(990);
    const { score, shingle, failed } = evaluate(pages, (p) => webgateMainContentText(p.bytes));
    console.info(`[quality] P ${score.precision.toFixed(4)} R ${score.recall.toFixed(4)} F ${score.f.toFixed(4)} (goal ${QUALITY_GOAL_F})`);
    console.info(`[quality] 4-shingle proxy over the labelled segments: P ${shingle.precision.toFixed(4)} R ${shingle.recall.toFixed(4)} F1 ${shingle.f1.toFixed(4)}`);
    expect(failed).toEqual([]);
    expect(score.f).toBeGreaterThanOrEqual(QUALITY_FLOOR_F);
  });

  it("generalises: the held-out quarter scores within 0.02 of the tuning part", () => {
    const held = evaluate(pages.filter((p) => isHoldout(p.file)), (p) => webgateMainContentText(p.bytes)).score.f;
    const tuned = evaluate(pages.filter((p) => !isHoldout(p.file)), (p) => webgateMainContentText(p.bytes)).score.f;
    console.info(`[quality] tuning split F ${tuned.toFixed(4)}, held-out split F ${held.toFixed(4)}`);
    expect(held).toBeGreaterThanOrEqual(tuned - 0.02);
  });
});
