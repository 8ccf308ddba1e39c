// The package's library surface: the provider and the protocol's constants, as index.mjs exports
// them beside the Cordis plugin. The CLI loads this module, not the plugin.
import { native, RULES, SCOPES, TRACKS } from './native.mjs'

/**
 * The memory provider (index.d.ts documents every method): gated async writes, sync reads. Each
 * call goes to the native core by name; the rules, the gate and the store are all there.
 */
export class MemoryProvider {
  #core
  constructor(options) {
    this.#core = new native.Native(options)
  }
  get path() {
    return this.#core.path
  }
  add(input, write) {
    return this.#core.write('add', input, write)
  }
  replace(input, write) {
    return this.#core.write('replace', input, write)
  }
  remove(input, write) {
    return this.#core.write('remove', input, write)
  }
  consolidate(input, write) {
    return this.#core.write('consolidate', input, write)
  }
  seed(inputs, write) {
    return this.#core.write('seed', inputs, write)
  }
  revert(seq, write) {
    return this.#core.write('revert', seq, write)
  }
  preview(action, input, write) {
    return this.#core.preview(action, input, write)
  }
  proposalDecide(id, decision, write) {
    return this.#core.decide(id, decision, write)
  }
  query(filter, opts) {
    return this.#core.read('query', [filter, opts])
  }
  similar(input) {
    return this.#core.read('similar', [input])
  }
  budgets(opts) {
    return this.#core.budgets(opts)
  }
  listEntries(opts) {
    return this.#core.read('listEntries', [opts])
  }
  entry(id) {
    return this.#core.read('entry', [id])
  }
  auditList(limit) {
    return this.#core.read('auditList', [limit])
  }
  snapshot(keys, labels, maxProposals) {
    return this.#core.read('snapshot', [keys, labels, maxProposals])
  }
  snapshotRecord(sessionId, text, keys) {
    return this.#core.read('snapshotRecord', [sessionId, text, keys])
  }
  history(target, opts) {
    return this.#core.read('history', [target, opts])
  }
  sessions(opts) {
    return this.#core.read('sessions', [opts])
  }
  health(opts) {
    return this.#core.read('health', [opts])
  }
  auditVerify() {
    return this.#core.read('auditVerify', [])
  }
  proposalAdd(input) {
    return this.#core.read('proposalAdd', [input])
  }
  proposalList(status, limit) {
    return this.#core.read('proposalList', [status, limit])
  }
  close() {
    this.#core.close()
  }
}

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
