/** The oldest Node.js that runs krtt; package.json's engines.node says the same. */
export declare const MINIMUM_NODE: string
/** Whether `version` (e.g. "20.20.2") is older than {@link MINIMUM_NODE}. */
export declare const tooOld: (version: string) => boolean
/** The one line an older Node gets instead of a syntax error or a missing API deep in a dependency. */
export declare const tooOldMessage: (version: string) => string
