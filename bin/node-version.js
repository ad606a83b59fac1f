// Which Node.js runs krtt: the sources are TypeScript that Node runs by stripping the types,
// unflagged from 22.18 (and 23.6) on, and the runtime dependencies (undici, @effect/platform-node)
// need 22.19. Plain JavaScript, so that any Node can load it.

/** The oldest Node.js that runs the sources; package.json's engines.node says the same. */
export const MINIMUM_NODE = "22.19.0"

/** Whether `version` (e.g. "20.20.2") is too old: before 22.19, or a 23 before 23.6 (no type stripping). */
export const tooOld = (version) => {
  const [major = 0, minor = 0] = version.replace(/^v/, "").split(".").map(Number)
  if (major > 23) return false
  if (major === 23) return minor < 6
  if (major === 22) return minor < 19
  return true
}

/** The one line an older Node gets instead of ERR_UNKNOWN_FILE_EXTENSION and a stack. */
export const tooOldMessage = (version) =>
  `krtt: needs Node.js ${MINIMUM_NODE} or later (it runs its TypeScript sources directly and its dependencies need it); this is Node.js ${version.replace(/^v/, "")}. ` +
  "Inside the project, npm scripts use the Node 24 that npm ci installs."
