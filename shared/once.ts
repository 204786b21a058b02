/**
 * `build` run on the first call and its result kept: for zod schemas that only some requests
 * need, which would otherwise be built at every cold start (zod objects cost time to build; see
 * docs/performance.md, Function bundles).
 */
export function once<T>(build: () => T): () => T {
  let built: { value: T } | undefined;
  return () => (built ??= { value: build() }).value;
}
