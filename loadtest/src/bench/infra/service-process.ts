/**
 * The environment of the services the bench starts from this checkout (its router, its
 * cluster's services): this process's, without any LADDER_* variable, so that a shell set up
 * for another cluster cannot leak into the bench's; each service gets only the LADDER_*
 * settings given to it.
 */
export function baseEnv(env: NodeJS.ProcessEnv = process.env): Record<string, string | undefined> {
  return Object.fromEntries(Object.entries(env).filter(([k]) => !k.startsWith("LADDER_")));
}
