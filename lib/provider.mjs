// The package's library surface: the native provider and the protocol's constants, as index.mjs
// exports them beside the Cordis plugin. The CLI loads this module, not the plugin.
import { native, RULES, SCOPES, TRACKS } from './native.mjs'

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
export { ERROR_CODES, isMemoryError } from './errors.mjs'
