// Which Node.js runs krtt: the built JavaScript needs nothing newer than its runtime
// dependencies do, and undici and @effect/platform-node need 22.19. Plain JavaScript with no
// imports, so that any Node can load it and say so in one line.

/** The oldest Node.js that runs krtt; package.json's engines.node says the same. */
export const MINIMUM_NODE = "22.19.0"

/** Whether `version` (e.g. "20.20.2") is older than {@link MINIMUM_NODE}. */
export const tooOld = (version) => {
  const [major = 0, minor = 0] = version.replace(/^v/, "").split(".").map(Number)
  const [needMajor = 0, needMinor = 0] = MINIMUM_NODE.split(".").map(Number)
  return major < needMajor || (major === needMajor && minor < needMinor)
}

/** The one line an older Node gets instead of a syntax error or a missing API deep in a dependency. */
export const tooOldMessage = (version) =>
  `krtt: needs Node.js ${MINIMUM_NODE} or later (its dependencies need it); this is Node.js ${version.replace(/^v/, "")}. ` +
  "Inside the project, npm scripts use the Node 24 that npm ci installs."
