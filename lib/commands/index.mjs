// The verbs `/memory` (lib/plugin/command.mjs) and the CLI (bin/dsh-memento.mjs) share. Each
// surface parses its own syntax into the arguments below, calls `runVerb`, and presents the
// structured result (`renderVerb` for text, or JSON). Rules and protocol messages stay in the
// provider; this layer only shapes calls, reads import sources, and words results.
//
// `env`: {provider, registry, write() → write context, keys?: {workspaceKey, agentKey},
//         usage(verb) → UsageError, warn?(warnings)}.
import { exportStore, importEntries } from '../envelope.mjs'
import { readImport } from './sources.mjs'

/** A command typed wrong; its message is the surface's own usage text. */
export class UsageError extends Error {}

const EMPTY = { entries: [], total: 0, truncated: false }
const inLayer = (a) => (e) => (!a.track || e.track === a.track) && (!a.scope || e.scope === a.scope)
/** The target layer of a write: user/workspace unless named. */
const layer = (a) => ({ track: a.track ?? 'user', scope: a.scope ?? 'workspace' })
const entryInput = (a, fields) => ({ ...layer(a), ...fields, ...(a.source ? { source: a.source } : {}), ...(a.tags ? { tags: a.tags } : {}) })
const blank = (s) => typeof s !== 'string' || s.trim() === ''

/** A provider standing in for a store that does not exist yet: reads are empty. */
export const emptyStore = (budgets) => ({
  listEntries: () => [],
  query: () => EMPTY,
  budgets: () => budgets,
  auditList: () => [],
  auditVerify: () => ({ ok: true, checked: 0, head: null }),
  proposalList: () => [],
})

const VERBS = {
  list: ({ provider }, a) => {
    const all = provider.listEntries().filter(inLayer(a))
    const entries = all.slice(0, a.limit ?? Infinity)
    return { entries, total: all.length, truncated: entries.length < all.length }
  },
  query: ({ provider, usage }, a) => {
    if (blank(a.text)) throw usage('query')
    return provider.query({ text: a.text, track: a.track, scope: a.scope, limit: a.limit }, { countRecall: false })
  },
  budgets: ({ provider }, a) => provider.budgets(a.workspaceKey ? { workspaceKey: a.workspaceKey } : undefined),
  audit: ({ provider }, a) => (a.verify ? { verify: provider.auditVerify() } : { rows: provider.auditList(a.limit) }),
  add: ({ provider, usage, write }, a) => {
    if (blank(a.text)) throw usage('add')
    return provider.add(entryInput(a, { text: a.text }), write())
  },
  remove: ({ provider, usage, write }, a) => {
    if (blank(a.match)) throw usage('remove')
    return provider.remove({ ...layer(a), match: a.match }, write())
  },
  replace: ({ provider, usage, write }, a) => {
    if (blank(a.match) || blank(a.text)) throw usage('replace')
    return provider.replace(entryInput(a, { match: a.match, text: a.text }), write())
  },
  consolidate: ({ provider, usage, write }, a) => {
    if (!a.matches) throw usage('consolidate')
    if (a.matches.length === 0 || a.matches.length > 20) throw usage('consolidateCount')
    if (blank(a.text)) throw usage('consolidateText')
    return provider.consolidate(entryInput(a, { matches: a.matches, text: a.text }), write())
  },
  proposals: ({ provider }, a) => provider.proposalList('pending', a.limit),
  approve: ({ provider, write }, a) => provider.proposalDecide(a.id, 'approved', write()),
  dismiss: ({ provider, write }, a) => provider.proposalDecide(a.id, 'dismissed', write()),
  adapters: ({ registry }) => registry.list(),
  export: ({ provider, registry }, a) => {
    if (a.adapter === undefined) return { envelopes: exportStore(provider, a.partSize === undefined ? {} : { partSize: a.partSize }) }
    const entries = provider.listEntries().filter(inLayer(a))
    return { adapter: a.adapter, count: entries.length, value: registry.export(a.adapter, entries, a.memoryId ? { memoryId: a.memoryId } : undefined) }
  },
  import: async ({ provider, registry, usage, write, keys, warn }, a) => {
    if (!a.sources?.length) throw usage('import')
    if (a.adapter !== undefined && a.sources.length !== 1) throw usage('importAdapter')
    const { inputs, warnings, from } = readImport(registry, a)
    warn?.(warnings)
    if (a.dryRun) return { dryRun: true, entries: inputs, warnings, from }
    const res = await importEntries(provider, inputs, write(), { skipExisting: Boolean(a.skipExisting), defaultKeys: keys, onProgress: a.onProgress })
    return { added: res.added, skipped: res.skipped, warnings, from }
  },
}

/** Run one verb; unknown verbs are the surface's to report. */
export const runVerb = (verb, env, args = {}) => VERBS[verb](env, args)
export const isVerb = (verb) => Object.hasOwn(VERBS, verb)

export { renderVerb, entryLine } from './render.mjs'
