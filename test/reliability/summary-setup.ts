/**
 * vitest globalSetup of the reliability figures: clears the figures the test files leave in
 * `.bench/reliability/` before the run, and after the run merges them into
 * `.bench/reliability.json` and prints the summary ("faults survived N of N", load figures,
 * "abuse inputs tried N, handled N"). Prints nothing when no reliability test ran.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { FIGURES_DIR, FIGURES_FILE, type Figures } from "./support";

/** The merged figures of one run, as written to `.bench/reliability.json`. */
export interface ReliabilitySummary {
  faults: { survived: number; total: number; cases: NonNullable<Figures["faults"]> };
  abuse: { tried: number; handled: number; groups: Record<string, { tried: number; handled: number }> };
  load: Record<string, number | number[] | string> | undefined;
}

/** Merges the per-file figures. */
export function mergeFigures(parts: Figures[]): ReliabilitySummary {
  const cases = parts.flatMap((p) => p.faults ?? []);
  const groups: Record<string, { tried: number; handled: number }> = {};
  for (const part of parts) {
    for (const [name, g] of Object.entries(part.abuse?.groups ?? {})) {
      const into = (groups[name] ??= { tried: 0, handled: 0 });
      into.tried += g.tried;
      into.handled += g.handled;
    }
  }
  const loads = parts.map((p) => p.load).filter((l) => l !== undefined);
  return {
    faults: { survived: cases.filter((c) => c.survived).length, total: cases.length, cases },
    abuse: {
      tried: parts.reduce((n, p) => n + (p.abuse?.tried ?? 0), 0),
      handled: parts.reduce((n, p) => n + (p.abuse?.handled ?? 0), 0),
      groups,
    },
    load: loads.length === 0 ? undefined : Object.assign({}, ...loads) as Record<string, number | number[] | string>,
  };
}

/** The summary lines printed at the end of the run. */
export function summaryLines(s: ReliabilitySummary): string[] {
  const lines = ["", "Reliability summary"];
  if (s.faults.total > 0) lines.push(`  faults survived ${s.faults.survived} of ${s.faults.total}`);
  const failed = s.faults.cases.filter((c) => !c.survived).map((c) => c.name);
  if (failed.length > 0) lines.push(`  faults NOT survived: ${failed.join("; ")}`);
  if (s.load !== undefined) {
    const l = s.load;
    const mb = (v: unknown) => (typeof v === "number" ? `${(v / 1_048_576).toFixed(1)} MB` : "?");
    if (l.hit_requests !== undefined) {
      lines.push(`  load: ${String(l.hit_requests)} cache-hit requests at concurrency ${String(l.hit_concurrency)}: ${String(l.hit_errors)} errors, p50 ${String(l.hit_p50_ms)} ms, p99 ${String(l.hit_p99_ms)} ms, ${String(l.hit_rps)} requests/s`);
    }
    if (l.miss_requests !== undefined) {
      lines.push(`  load: ${String(l.miss_requests)} concurrent misses of one URL: ${String(l.miss_errors)} errors, ${String(l.miss_origin_requests)} origin request(s)`);
    }
    if (Array.isArray(l.rss_per_round)) {
      lines.push(`  memory: peak RSS ${mb(l.peak_rss)}, RSS per round ${l.rss_per_round.map(mb).join(" / ")}, heap after GC per round ${Array.isArray(l.heap_per_round) ? l.heap_per_round.map(mb).join(" / ") : "?"}`);
    }
  }
  if (s.abuse.tried > 0) {
    lines.push(`  abuse inputs tried ${s.abuse.tried}, handled ${s.abuse.handled}`);
    for (const [name, g] of Object.entries(s.abuse.groups)) lines.push(`    ${name}: ${g.tried} tried, ${g.handled} handled`);
  }
  return lines;
}

export function setup(): () => void {
  rmSync(FIGURES_DIR, { recursive: true, force: true });
  return () => {
    if (!existsSync(FIGURES_DIR)) return;
    const parts = readdirSync(FIGURES_DIR)
      .filter((f) => f.endsWith(".json"))
      .sort()
      .map((f) => JSON.parse(readFileSync(path.join(FIGURES_DIR, f), "utf8")) as Figures);
    if (parts.length === 0) return;
    const summary = mergeFigures(parts);
    mkdirSync(path.dirname(FIGURES_FILE), { recursive: true });
    writeFileSync(FIGURES_FILE, JSON.stringify(summary, null, 2));
    process.stdout.write(`${summaryLines(summary).join("\n")}\n  (figures in ${path.relative(process.cwd(), FIGURES_FILE)})\n\n`);
  };
}
