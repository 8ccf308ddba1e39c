// dsh-memento: the public entry. The native provider with the protocol constants
// (./lib/provider.mjs), and the Cordis plugin (name/inject/Config/apply, ./lib/plugin/index.mjs).
export {
  MemoryProvider,
  resolveDbPath,
  dshHome,
  workspaceKeyOf,
  agentKeyOf,
  PROTOCOL,
  TRACKS,
  SCOPES,
  DEFAULT_BUDGETS,
  ERROR_CODES,
  isMemoryError,
} from './lib/provider.mjs'

// The Cordis plugin: `dsh plugin add dsh-memento` loads this module as a bundle row `memento`.
export { name, inject, Config, apply } from './lib/plugin/index.mjs'
