/**
 * The command line's mistakes of the user's.
 *
 * @module
 */

/** A mistake of the user's: the message says what to fix; no stack trace is shown. */
export class UsageError extends Error {
  override readonly name = "UsageError"
}
