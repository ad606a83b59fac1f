/**
 * The entry point of the `krtt` command (`bin/krtt.js` calls {@link main}).
 *
 * It turns on Node's module compile cache before anything else is loaded: a command then reuses
 * the V8 code that an earlier run compiled for the same files (effect, client-node, krtt)
 * instead of compiling them again, which is most of the start-up of a short command. The cache
 * is Node's own (`$NODE_COMPILE_CACHE`, else `node-compile-cache` in the temporary directory;
 * `NODE_DISABLE_COMPILE_CACHE=1` turns it off), checked against each file's contents, and a
 * directory it cannot write (a read-only root filesystem) leaves it off without a word.
 *
 * The commands that run controllers until they are stopped do not turn it on: a process that
 * read the cache stays about as much larger as the cache it read (measured for the operator:
 * 10 MiB more resident, outside V8's heap, still so 30 s after start), which outweighs
 * compiling once at start. `$NODE_COMPILE_CACHE` turns it on for them too (Node reads it).
 *
 * @module
 */

import { enableCompileCache } from "node:module"

/** The commands that run controllers until they are stopped. */
const LONG_RUNNING: ReadonlyArray<string> = ["run", "ipam", "inventory", "propagate"]

/** Runs the `krtt` command line of this process. */
export const main = (): void => {
  if (!LONG_RUNNING.includes(process.argv[2] ?? "")) enableCompileCache()
  void import("./krtt.ts").then(({ runCli }) => runCli())
}

if (import.meta.main) main()
