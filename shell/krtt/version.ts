/**
 * krtt's version, read from its package.json: the one place it is written. The package refers to
 * itself by name, so the same line works from the sources, from the build and from an install.
 *
 * @module
 */
import { createRequire } from "node:module"

const own = createRequire(import.meta.url)("krtt/package.json") as { readonly version: string }

/** The version of this krtt, as package.json states it. */
export const version: string = own.version
