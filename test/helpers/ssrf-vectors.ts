/**
 * Loads the shared SSRF vectors from the shared folder's ssrf/ (../shared/ssrf beside the
 * repository: present on the team's machines, absent in a fresh clone). Returns undefined,
 * after printing why, when absent: the tests that use them skip, and the repository's own cases
 * still cover every rule.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { findSharedDir } from "../../scripts/lib/shared-dir";

/**
 * Where the vectors are: `ssrf/` in the shared folder that findSharedDir finds (env
 * WEBGATE_SHARED_DIR, else <repo>/../shared, else /work/shared: a worktree at /work/wt/<name>
 * has no ../shared of its own); undefined when there is none.
 */
const sharedDir = findSharedDir();
export const SSRF_DIR = sharedDir === null ? undefined : path.join(sharedDir, "ssrf");

export interface UrlVector {
  url: string;
  expect: "allow" | "refuse";
  why: string;
}

export interface DnsVector {
  host: string;
  url: string;
  addresses?: string[];
  error?: string;
  expect: "allow" | "refuse";
  why: string;
}

export interface RebindingVector {
  host: string;
  answers: string[][];
  expect: "allow" | "refuse";
  lookups: number;
  connect_to: string;
  why: string;
}

export interface RedirectVector {
  name: string;
  hops: Array<{ url: string; status?: number; location?: string }>;
  dns: Record<string, string[]>;
  expect: "allow" | "refuse";
  refused_at?: number;
  why: string;
}

export interface DnsVectors {
  dns: DnsVector[];
  rebinding: RebindingVector[];
  redirects: RedirectVector[];
}

function load<T>(file: string): T | undefined {
  const full = SSRF_DIR === undefined ? `../shared/ssrf/${file}` : path.join(SSRF_DIR, file);
  if (SSRF_DIR === undefined || !existsSync(full)) {
    console.warn(`[skip] ${full} is absent: the shared SSRF vector tests are skipped (the repository's own cases still run).`);
    return undefined;
  }
  return JSON.parse(readFileSync(full, "utf8")) as T;
}

export const loadUrlVectors = (): UrlVector[] | undefined => load<UrlVector[]>("url-vectors.json");
export const loadDnsVectors = (): DnsVectors | undefined => load<DnsVectors>("dns-vectors.json");
