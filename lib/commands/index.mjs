// The verbs `/memory` (lib/plugin/command.mjs) and the CLI (bin/dsh-memento.mjs) share. Each
// surface parses its own syntax into the arguments below, calls `runVerb`, and presents the
// structured result (`renderVerb` for text, or JSON). Rules and protocol messages stay in the
// provider; this layer only shapes calls, reads import sources, and words results.
//
// `env`: {provider, registry, write() → write context, keys?: {workspaceKey, agentKey},
//         usage(key) → UsageError, warn?(warnings), t, own, similarOf?(write) → what the
//         surface's gate saw as alike, shownOf?(write) → the change as its gate was asked it}
//         (`t`: the strings table's `cmd` in the surface's language, `own`: its part for this
//         surface; an import's refusals use them). A verb checks its arguments before it
//         touches `env.provider`, so a surface may open the store lazily (the CLI does).
import { entryRefusal, exportStore, importEntries } from '../envelope.mjs'
import { explainImportError, flaggedLines } from './explain.mjs'
import { native, RULES, SCOPES, TRACKS, writeLayer } from '../native.mjs'
import { readImport } from './sources.mjs'
import { isMemoryError } from '../errors.mjs'

/** A command typed wrong; its message is the surface's own usage text. */
export class UsageError extends Error {}

/** `usage(key)` for a surface: what is missing, then the surface's synopsis of the verb. */
export const usageFor = (t, surface) => (key) => {
  const synopsis = t[surface].synopsis[key]
  return new UsageError(synopsis ? t.usageLine(t.need[key], synopsis) : t.need[key])
}

/** The layers' names, as both surfaces accept them in flags. */
export { SCOPES, TRACKS }

/**
 * `--stale-days` of `doctor` as typed: digits as a number, anything else as it is, for the
 * provider to refuse (it takes only a positive whole number of days); `undefined` when not given.
 */
export const staleDaysFlag = (typed) => (typed === undefined ? undefined : /^\d+$/.test(typed) ? Number(typed) : typed)

/**
 * An audit seq as typed (`12` or `#12`): digits as a number, anything else as it is, for the
 * provider to refuse (it takes only a positive whole number); `undefined` when not given.
 */
export const seqArg = (typed) => {
  if (typed === undefined || typed === '') return undefined
  const digits = /^#?(\d+)$/.exec(typed)
  return digits ? Number(digits[1]) : typed
}

/** How far back a bare `undo` looks for the newest change its session can undo. */
const UNDO_REACH = 1000

const EMPTY = { entries: [], total: 0, truncated: false }
/** The layer flags as the provider's exact facets (a flag not given: any). */
const onlyLayer = (a) => ({ only: { track: a.track, scope: a.scope } })
const entryInput = (a, fields) => ({
  ...writeLayer(a),
  ...fields,
  ...(a.source ? { source: a.source } : {}),
  ...(a.tags ? { tags: a.tags } : {}),
})
// Whether an argument was given at all (else the usage); what a text must be is the provider's rule.
const missing = (s) => s === undefined || s === ''
/** A write's result, with the stored entries its approval named as alike (`similar`), for the surface to show. */
async function hinted(env, call) {
  const w = env.write()
  const r = await call(w)
  const similar = env.similarOf?.(w) ?? []
  return similar.length ? { ...r, similar } : r
}

/**
 * `history`'s target as typed: `#<seq>` is that audit row's entry; with a layer flag, or when it
 * is not an entry id the ledger knows, a unique substring (found as `replace` finds it, in the
 * surface's session's view); else that entry, whichever workspace and agent it belongs to.
 */
function historyOf(env, a) {
  const seq = /^#\d+$/.test(a.target) ? seqArg(a.target) : undefined
  if (seq !== undefined) return env.provider.history(seq)
  const byMatch = () =>
    env.provider.history(
      { match: a.target, ...(a.track ? { track: a.track } : {}), ...(a.scope ? { scope: a.scope } : {}) },
      env.keys && { workspaceKey: env.keys.workspaceKey, agentKey: env.keys.agentKey },
    )
  if (a.track || a.scope) return byMatch()
  try {
    return env.provider.history(a.target)
  } catch (e) {
    if (isMemoryError(e) && e.code === 'INVALID_INPUT') return byMatch()
    throw e
  }
}

/**
 * The newest change the session of `write` can undo: the first audit row, newest first, whose
 * revert the provider plans (it alone knows which rows are changes, and what that session sees);
 * `undefined` when there is none.
 */
function newestUndoable(provider, write) {
  for (const row of provider.auditList(UNDO_REACH)) {
    try {
      provider.preview('revert', row.seq, write)
      return row.seq
    } catch (e) {
      if (!isMemoryError(e)) throw e
    }
  }
  return undefined
}

/** A provider standing in for a store that does not exist yet: reads are empty. */
export const emptyStore = (budgets) => ({
  listEntries: () => [],
  query: () => EMPTY,
  similar: () => [],
  budgets: () => budgets,
  auditList: () => [],
  auditVerify: () => ({ ok: true, checked: 0, head: null }),
  proposalList: () => [],
  health: () => ({ checked: 0, findings: [] }),
  history: () => ({ entryId: null, complete: true, versions: [] }),
  sessions: () => ({ sessions: [] }),
})

const VERBS = {
  list: ({ provider }, a) => {
    const all = provider.listEntries(onlyLayer(a))
    const entries = all.slice(0, a.limit ?? Infinity)
    return { entries, total: all.length, truncated: entries.length < all.length }
  },
  query: (env, a) => {
    if (missing(a.text)) throw env.usage('query')
    return env.provider.query({ text: a.text, track: a.track, scope: a.scope, limit: a.limit }, { countRecall: false })
  },
  budgets: ({ provider }, a) => provider.budgets(a.workspaceKey ? { workspaceKey: a.workspaceKey } : undefined),
  audit: ({ provider }, a) => (a.verify ? { verify: provider.auditVerify() } : { rows: provider.auditList(a.limit) }),
  // Every version of one entry, oldest first, with the row that made each and how it ended.
  history: (env, a) => {
    if (missing(a.target)) throw env.usage('history')
    return historyOf(env, a)
  },
  // Undo a landed change (by default the newest this session can undo), asked like any write with
  // the whole inverse change; `showChange` (a typed /memory undo, which has no approval card to
  // show it in) returns the change as it was approved.
  undo: async (env, a) => {
    const write = env.write()
    const seq = a.seq ?? newestUndoable(env.provider, write)
    if (seq === undefined) return { reverted: null, changes: [] }
    const r = await env.provider.revert(seq, write)
    const shown = a.showChange ? env.shownOf?.(write) : undefined
    return shown ? { ...r, shown } : r
  },
  // The recorded sessions, newest first; one by id, with the exact snapshot it was given.
  sessions: ({ provider }, a) => provider.sessions(a.sessionId ? { sessionId: a.sessionId } : { limit: a.limit }),
  add: (env, a) => {
    if (missing(a.text)) throw env.usage('add')
    return hinted(env, (w) => env.provider.add(entryInput(a, { text: a.text }), w))
  },
  remove: (env, a) => {
    if (missing(a.match)) throw env.usage('remove')
    return env.provider.remove({ ...writeLayer(a), match: a.match, ...(a.source ? { source: a.source } : {}) }, env.write())
  },
  replace: (env, a) => {
    if (missing(a.match) || missing(a.text)) throw env.usage('replace')
    return hinted(env, (w) => env.provider.replace(entryInput(a, { match: a.match, text: a.text }), w))
  },
  consolidate: (env, a) => {
    if (!a.matches) throw env.usage('consolidate')
    if (a.matches.length === 0 || a.matches.length > RULES.maxConsolidateMatches) throw env.usage('consolidateCount')
    if (missing(a.text)) throw env.usage('consolidateText')
    return env.provider.consolidate(entryInput(a, { matches: a.matches, text: a.text }), env.write())
  },
  proposals: ({ provider }, a) => provider.proposalList('pending', a.limit),
  approve: ({ provider, write }, a) => provider.proposalDecide(a.id, 'approved', write()),
  dismiss: ({ provider, write }, a) => provider.proposalDecide(a.id, 'dismissed', write()),
  adapters: ({ registry }) => registry.list(),
  // The health check; `fix` applies one finding's write, which asks for approval like any other
  // (a typed /memory fix is the user's own, as a typed consolidate is).
  doctor: async (env, a) => {
    const health = env.provider.health({ ...a.visible, ...(a.staleDays === undefined ? {} : { staleDays: a.staleDays }) })
    if (a.fix === undefined) return health
    const hits = health.findings.filter((f) => f.fix && f.id.startsWith(a.fix))
    if (hits.length !== 1) throw new UsageError(hits.length ? env.t.doctor.ambiguous(a.fix, hits.length) : env.t.doctor.noFix(a.fix))
    const [finding] = hits
    const { action, input } = finding.fix
    return { finding, action, result: await env.provider[action](input, env.write()) }
  },
  export: (env, a) => {
    const { provider, registry } = env
    if (a.adapter === undefined) {
      const envelopes = exportStore(env.provider, a.partSize === undefined ? {} : { partSize: a.partSize })
      // one v1 document holds at most 1000 entries: more go to a directory, as parts and a manifest
      if (envelopes.length > 1 && !a.parts) throw env.usage('exportParts')
      return { envelopes }
    }
    const entries = provider.listEntries(onlyLayer(a))
    return {
      adapter: a.adapter,
      count: entries.length,
      value: registry.export(a.adapter, entries, a.memoryId ? { memoryId: a.memoryId } : undefined),
    }
  },
  import: async (env, a) => {
    if (!a.sources?.length) throw env.usage('import')
    if (a.adapter !== undefined && a.sources.length !== 1) throw env.usage('importAdapter')
    let { inputs, origins, warnings, from } = readImport(env.registry, a)
    const explain = (e) =>
      explainImportError(e, { inputs, origins, adapter: a.adapter, provider: env.provider, keys: env.keys, t: env.t, own: env.own })
    let flagged = []
    if (a.skipFlagged) {
      try {
        flagged = native.screenEntries(inputs)
      } catch (e) {
        throw explain(e)
      }
      if (flagged.length) {
        warnings = [
          ...warnings,
          { message: [env.t.secret.leftOut(flagged.length), ...flaggedLines(flagged, inputs, origins, env.t)].join('\n') },
        ]
        const out = new Set(flagged.map((f) => f.index))
        const keep = (_, i) => !out.has(i)
        inputs = inputs.filter(keep)
        origins = origins.filter(keep)
      }
    }
    env.warn?.(warnings)
    if (a.dryRun) {
      // The change exactly as its approval would show it (every entry with every field).
      let shown
      try {
        shown = inputs.length && env.provider.preview ? env.provider.preview('seed', inputs, env.write()).reason : undefined
      } catch (e) {
        // an entry it refuses is named; a batch over budget: the listing and the layer sizes say why
        const refused = entryRefusal(e, origins, a.adapter)
        if (refused !== e) throw refused
      }
      return { dryRun: true, entries: inputs, warnings, from, flagged, shown }
    }
    try {
      const write = env.write()
      const res = inputs.length
        ? await importEntries(env.provider, inputs, write, {
            skipExisting: Boolean(a.skipExisting),
            defaultKeys: env.keys,
            onProgress: a.onProgress,
          })
        : { added: 0, skipped: 0 }
      // The change as it was approved, for a surface with no approval to show it in
      // (`showChange`: a typed /memory import): the gate's own payload, not a second plan.
      const shown = a.showChange ? env.shownOf?.(write) : undefined
      return { added: res.added, skipped: res.skipped, warnings, from, flagged, shown }
    } catch (e) {
      throw explain(e)
    }
  },
}

/** Run one verb; unknown verbs are the surface's to report. */
export const runVerb = (verb, env, args = {}) => VERBS[verb](env, args)
export const isVerb = (verb) => Object.hasOwn(VERBS, verb)

export { errorHelp, renderVerb } from './render.mjs'
