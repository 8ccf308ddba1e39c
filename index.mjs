// dsh-memento: the public entry. Loads the native provider and exports it with the protocol
// constants; the Cordis plugin (name/inject/Config/apply) lives in ./lib/plugin/index.mjs.
import { native, RULES, SCOPES, TRACKS } from './lib/native.mjs'

/** The native provider class: gated async writes, sync reads. */
export const MemoryProvider = native.MemoryProvider
export const resolveDbPath = (dbPath = '') => native.resolveDbPath(dbPath)
/** The dsh home (`$DSH_HOME`, else `~/.dsh`), resolved as the store's path is. */
export const dshHome = () => native.dshHome()
export const workspaceKeyOf = (cwd) => native.workspaceKeyOf(cwd)
export const agentKeyOf = (preset) => native.agentKeyOf(preset)

export const PROTOCOL = RULES.protocol
export { TRACKS, SCOPES }
const budgets = native.resolveConfig({}).budgets
export const DEFAULT_BUDGETS = Object.freeze({ user: Object.freeze(budgets.user), agent: Object.freeze(budgets.agent) })
/** The protocol error codes, and the test for an error of this package. */
export { ERROR_CODES, isMemoryError } from './lib/errors.mjs'

// The Cordis plugin: `dsh plugin add dsh-memento` loads this module as a bundle row `memento`.
export { name, inject, Config, apply } from './lib/plugin/index.mjs'
