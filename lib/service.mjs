// `ctx.memory`: the gated service other plugins and the plugin's own surfaces use.
//
// The provider lives in a private field. Every write takes `{agent, callId?, signal?, source?}` only:
// the write context is rebuilt, so a caller-supplied `gate` (or anything else) never reaches
// the provider, whose only approval transport is the one the plugin constructed it with.
import { entryRefusal, exportStore, readEnvelopes } from './envelope.mjs'
import { RULES } from './native.mjs'

const cleanWrite = (write) => {
  if (write === null || typeof write !== 'object') return write
  const out = { agent: write.agent }
  if (typeof write.callId === 'string') out.callId = write.callId
  if (typeof write.source === 'string') out.source = write.source
  if (write.signal !== undefined) out.signal = write.signal
  return out
}

export class MemoryService {
  #provider
  #language
  #keys

  constructor(provider, { language = 'en', keys }) {
    this.#provider = provider
    this.#language = language
    this.#keys = keys
    Object.freeze(this)
  }

  /** `en` or `zh`. */
  get language() {
    return this.#language
  }

  /** The protocol id this service speaks. */
  get protocol() {
    return RULES.protocol
  }

  /** Visibility keys of a session: `{sessionId, workspaceKey, agentKey}`. */
  keysOf(session) {
    return {
      sessionId: typeof session?.id === 'string' ? session.id : undefined,
      workspaceKey: this.#keys.workspaceKeyOf(session?.header?.cwd),
      agentKey: this.#keys.agentKeyOf(session?.header?.agentPreset),
    }
  }

  add(input, write) {
    return this.#provider.add(input, cleanWrite(write))
  }
  replace(input, write) {
    return this.#provider.replace(input, cleanWrite(write))
  }
  remove(input, write) {
    return this.#provider.remove(input, cleanWrite(write))
  }
  consolidate(input, write) {
    return this.#provider.consolidate(input, cleanWrite(write))
  }
  seed(inputs, write) {
    return this.#provider.seed(inputs, cleanWrite(write))
  }
  /** Restore an export document or its parts (one approval, one transaction; budgets checked). */
  async import(doc, write) {
    const { inputs, labels } = readEnvelopes([doc])
    try {
      return await this.#provider.seed(inputs, cleanWrite(write))
    } catch (e) {
      throw entryRefusal(
        e,
        labels.map((label) => ({ label })),
      )
    }
  }
  /** The approval payload a write would ask for (the whole change), asking nobody and writing nothing. */
  preview(action, input, write) {
    return this.#provider.preview(action, input, cleanWrite(write))
  }
  proposalDecide(id, decision, write) {
    return this.#provider.proposalDecide(id, decision, cleanWrite(write))
  }
  /** Undo the landed change audit row `seq` belongs to, asked like any write with the whole inverse change. */
  revert(seq, write) {
    return this.#provider.revert(seq, cleanWrite(write))
  }

  query(filter, opts) {
    return this.#provider.query(filter, opts)
  }
  budgets(opts) {
    return this.#provider.budgets(opts)
  }
  /** Every entry, oldest first; `{only: {track?, scope?, workspaceKey?, agentKey?}}`: of those exact facets. */
  listEntries(opts) {
    return this.#provider.listEntries(opts)
  }
  /** The entry `id`, or null. */
  entry(id) {
    return this.#provider.entry(id)
  }
  auditList(limit) {
    return this.#provider.auditList(limit)
  }
  /** Walk the audit hash chain (when the provider keeps one). */
  auditVerify() {
    return typeof this.#provider.auditVerify === 'function' ? this.#provider.auditVerify() : null
  }
  proposalList(status, limit) {
    return this.#provider.proposalList(status, limit)
  }
  /** Every version of an entry (an id, an audit seq, or `{match, track?, scope?}`), oldest first, and how it ended. */
  history(target, opts) {
    return this.#provider.history(target, opts)
  }
  /** Recorded sessions, newest first; `{sessionId}`: that one, with the exact snapshot it was given. */
  sessions(opts) {
    return this.#provider.sessions(opts)
  }
  /** The snapshot a session with these keys would be given now (reads only; see lib/snapshot.mjs). */
  snapshot(keys, labels, maxProposals) {
    return this.#provider.snapshot(keys, labels, maxProposals)
  }
  /** The health check: per layer, what to consolidate or remove, each with its gated fix (reads only). */
  health(opts) {
    return this.#provider.health(opts)
  }
  /** The export envelope — beyond 1000 entries an array of complete envelopes, 1000 each (read-only, no audit row). */
  export() {
    const parts = exportStore(this.#provider)
    return parts.length === 1 ? parts[0] : parts
  }
}
