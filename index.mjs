// dsh-memento: the public entry. Loads the native provider and exports it with the protocol
// constants; the Cordis plugin (name/inject/Config/apply) lives in ./lib/plugin/index.mjs.
import { native } from './lib/native.mjs'

/** The native provider class: gated async writes, sync reads. */
export const MemoryProvider = native.MemoryProvider
export const resolveDbPath = (dbPath = '') => native.resolveDbPath(dbPath)
export const workspaceKeyOf = (cwd) => native.workspaceKeyOf(cwd)
export const agentKeyOf = (preset) => native.agentKeyOf(preset)

export const PROTOCOL = 'dsh-memory-protocol/v1'
export const TRACKS = Object.freeze(['user', 'agent'])
export const SCOPES = Object.freeze(['user-global', 'workspace'])
const budgets = native.resolveConfig({}).budgets
export const DEFAULT_BUDGETS = Object.freeze({ user: Object.freeze(budgets.user), agent: Object.freeze(budgets.agent) })
export const ERROR_CODES = Object.freeze([
  'INVALID_INPUT',
  'WRITE_REQUIRES_AGENT',
  'BUDGET_EXCEEDED',
  'ENTRY_NOT_FOUND',
  'AMBIGUOUS_MATCH',
  'WRITE_DENIED',
  'PROPOSAL_NOT_FOUND',
  'STORE_CORRUPT',
  'STORE_UNSUPPORTED_VERSION',
  'ADAPTER_NOT_FOUND',
  'ADAPTER_PAYLOAD',
])

/** True for errors thrown by this package (they carry a protocol `code` and `details`). */
export function isMemoryError(e) {
  return e instanceof Error && ERROR_CODES.includes(e.code) && typeof e.details === 'object' && e.details !== null
}

// The Cordis plugin: `dsh plugin add dsh-memento` loads this module as a bundle row `memento`.
export { name, inject, Config, apply } from './lib/plugin/index.mjs'
