/** The oldest Node.js that runs the sources; package.json's engines.node says the same. */
export declare const MINIMUM_NODE: string
/** Whether `version` (e.g. "20.20.2") is too old: before 22.19, or a 23 before 23.6 (no type stripping). */
export declare const tooOld: (version: string) => boolean
/** The one line an older Node gets instead of ERR_UNKNOWN_FILE_EXTENSION and a stack. */
export declare const tooOldMessage: (version: string) => string
