/** One titled table of `npm run bench`'s report plus its raw figures for the JSON file. */
export interface BenchSection {
  title: string;
  columns: string[];
  rows: (string | number)[][];
  notes: string[];
  data: unknown;
}

/** The section as a Markdown table with its notes as a list below. */
export function renderTable(section: BenchSection): string {
  const widths = section.columns.map((c, i) => Math.max(c.length, ...section.rows.map((r) => String(r[i]).length)));
  const line = (cells: (string | number)[]) => `| ${cells.map((c, i) => String(c).padEnd(widths[i]!)).join(" | ")} |`;
  return [`### ${section.title}`, "", line(section.columns), `| ${widths.map((w) => "-".repeat(w)).join(" | ")} |`, ...section.rows.map(line), "", ...section.notes.map((n) => `- ${n}`)].join("\n");
}
