/**
 * Loads the shared SSRF vectors from ../shared/ssrf beside the repository (present on the team's
 * machines, absent in a fresh clone). Returns undefined, after printing why, when absent: the
 * tests that use them skip, and the repository's own cases still cover every rule.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const SSRF_DIR = path.resolve(repoRoot, "../shared/ssrf");

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
  const full = path.join(SSRF_DIR, file);
  if (!existsSync(full)) {
    console.warn(`[skip] ${full} is absent: the shared SSRF vector tests are skipped (the repository's own cases still run).`);
    return undefined;
  }
  return JSON.parse(readFileSync(full, "utf8")) as T;
}

export const loadUrlVectors = (): UrlVector[] | undefined => load<UrlVector[]>("url-vectors.json");
export const loadDnsVectors = (): DnsVectors | undefined => load<DnsVectors>("dns-vectors.json");
