/**
 * The simulator's command-line mistakes.
 *
 * @module
 */

/** A problem with what the user asked for: printed as one message, exit code 2. */
export class SimUsageError extends Error {
  constructor(message: string) {
    super(message)
    this.name = "SimUsageError"
  }
}
