/** The oldest Node.js that runs the sources; package.json's engines.node says the same. */
export declare const MINIMUM_NODE: string
/** Whether `version` (e.g. "20.20.2") is too old to strip types without a flag. */
export declare const tooOld: (version: string) => boolean
/** The one line an older Node gets instead of ERR_UNKNOWN_FILE_EXTENSION and a stack. */
export declare const tooOldMessage: (version: string) => string
