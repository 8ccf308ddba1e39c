// dsh-memento: the public entry. Loads the native provider and exports it with the protocol
// constants; the Cordis plugin (name/inject/Config/apply) lives in ./lib/plugin/index.mjs.
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { bindingMissing } from './lib/platform.mjs'

const require = createRequire(import.meta.url)

function loadNative() {
  try {
    return require('./native.cjs')
  } catch (cause) {
    throw bindingMissing(cause, fileURLToPath(new URL('.', import.meta.url)))
  }
}

const native = loadNative()

/** The native provider class: gated async writes, sync reads. */
export const MemoryProvider = native.MemoryProvider
export const resolveDbPath = (dbPath = '') => native.resolveDbPath(dbPath)
export const workspaceKeyOf = (cwd) => native.workspaceKeyOf(cwd)
export const agentKeyOf = (preset) => native.agentKeyOf(preset)

export const PROTOCOL = 'dsh-memory-protocol/v1'
export const TRACKS = Object.freeze(['user', 'agent'])
export const SCOPES = Object.freeze(['user-global', 'workspace'])
export const DEFAULT_BUDGETS = Object.freeze({
  user: Object.freeze({ userGlobal: 2000, workspace: 2000 }),
  agent: Object.freeze({ userGlobal: 4000, workspace: 4000 }),
})
/** The protocol error codes, and the test for an error of this package. */
export { ERROR_CODES, isMemoryError } from './lib/errors.mjs'

// The Cordis plugin: `dsh plugin add dsh-memento` loads this module as a bundle row `memento`.
export { name, inject, Config, apply } from './lib/plugin/index.mjs'
