import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/**
 * The folder of shared test data that ships beside the repository, not in it: env
 * WEBGATE_SHARED_DIR if set, else <repo>/../shared if it exists, else /work/shared if it exists
 * (worktrees live at /work/wt/<name>); null when none is there (a fresh clone).
 */
export function findSharedDir(env: NodeJS.ProcessEnv = process.env): string | null {
  const fromEnv = env.WEBGATE_SHARED_DIR;
  if (fromEnv !== undefined && fromEnv !== "") return existsSync(fromEnv) ? path.resolve(fromEnv) : null;
  for (const candidate of [path.resolve(REPO_ROOT, "../shared"), "/work/shared"]) if (existsSync(candidate)) return candidate;
  return null;
}
