// Text of a verb's result, worded by the strings table (lib/plugin/strings.mjs `cmd`) and the
// surface's own syntax (`t[surface]`: usage lines and footers).
import { renderExport } from '../envelope.mjs'
import { native } from '../native.mjs'

/** Stored text as a terminal may show it: further lines indented, control characters (a `\r`, an escape sequence) written as escapes, never obeyed. */
export const shown = (text) => native.visibleLines(String(text ?? '')).join('\n  ')
const lines = (...xs) => xs.flat().join('\n')

/** Where an entry (or a proposal, once approved) lives: `track/scope @workspace #agent`. */
const place = (e) => `${e.track}/${e.scope}${e.scope === 'workspace' && e.workspaceKey ? ` @${shown(e.workspaceKey)}` : ''}${e.agentKey ? ` #${shown(e.agentKey)}` : ''}`

/** One entry: `- [track/scope @workspace #agent] text  (tags: …)`. */
function entryLine(e, t) {
  return `- [${place(e)}] ${shown(e.text)}${e.tags?.length ? t.tags(e.tags.map(shown)) : ''}`
}

const page = (r, t, full, partial) => [r.truncated ? partial(r.total, r.entries.length) : full(r.total), ...r.entries.map((e) => entryLine(e, t))]
const written = (head, r, t) => lines(head, t.usage(r.usage.used, r.usage.limit))
const fromText = (from, t) => (from.adapter ? t.from.adapter(from.adapter) : from.parts > 1 ? t.from.parts(from.parts) : t.from.document)
/** Each layer's share of a dry run: what the budgets will be asked for. */
function layerSizes(entries, t) {
  const sizes = new Map()
  for (const e of entries) {
    const k = `${e.track}/${e.scope}`
    const [chars, n] = sizes.get(k) ?? [0, 0]
    sizes.set(k, [chars + e.text.length, n + 1])
  }
  return [...sizes].map(([k, [chars, n]]) => t.layerSize(k, chars, n))
}
const auditLine = (r) => `- ${new Date(r.ts).toISOString()} ${shown(r.action)}${r.track ? ` ${shown(r.track)}/${shown(r.scope)}` : ''} ${shown(r.outcome)} (${shown(r.source)})`.trim()

/** A verification: the chain, then every record and layer that does not match the ledger. */
function verified(v, t) {
  if (v.ok) return t.auditVerified(v.checked, v.head)
  const chain = v.firstBroken ? t.auditBroken(v.firstBroken.seq, v.firstBroken.reason, v.checked) : t.auditVerified(v.checked, v.head)
  const records = (v.records?.mismatched ?? []).map((m) => t.auditRecord(m.table, shown(m.id), m.reason))
  const layers = (v.layers ?? []).map((l) => t.auditLayer(l.track, l.scope, shown(l.workspaceKey), l.recorded, l.actual))
  const stored = [...records, ...layers]
  return lines(chain, stored.length ? [t.auditStored(stored.length), ...stored] : [])
}

const TEXT = {
  list: (r, t) => (r.total === 0 ? t.empty : lines(page(r, t, t.entries, t.entriesPartial))),
  query: (r, t, a) => (r.total === 0 ? t.noMatch(a.text) : lines(page(r, t, t.matches, t.matchesPartial))),
  budgets: (rows, t) => lines(t.budgets, rows.map((b) => `- ${b.track}/${b.scope}: ${b.used}/${b.limit}`)),
  audit: (r, t) => {
    if (r.verify) return verified(r.verify, t)
    return r.rows.length === 0 ? t.auditEmpty : lines(t.audit(r.rows.length), r.rows.map(auditLine))
  },
  add: (r, t) => written(t.added(r.entry.track, r.entry.scope, shown(r.entry.text)), r, t),
  remove: (r, t) => written(t.removed(r.entry.track, r.entry.scope, shown(r.entry.text)), r, t),
  replace: (r, t) => written(t.replaced(r.entry.track, r.entry.scope, shown(r.previous.text), shown(r.entry.text)), r, t),
  consolidate: (r, t) => written(t.consolidated(r.entry.track, r.entry.scope, r.removed.length, shown(r.entry.text)), r, t),
  proposals: (list, t, _a, own) =>
    // where an approval would land: its layer, workspace and agent
    list.length === 0 ? t.noProposals : lines(t.proposals(list.length), list.map((p) => `- [${p.id}] ${place(p)}: ${shown(p.text)}  (${shown(p.kind)}, ${shown(p.source)})`), own.proposalsFooter),
  approve: (r, t) => lines(t.approved(r.entry.track, r.entry.scope, shown(r.entry.text)), r.usage ? t.usage(r.usage.used, r.usage.limit) : []),
  dismiss: (_r, t, a) => t.dismissed(a.id),
  adapters: (list, t, _a, own) =>
    list.length === 0 ? t.noAdapters : lines(t.adapters(list.length), list.map((x) => `- ${x.id} (${x.name}, v${x.version}): ${x.description}\n  ${t.adapterFormats(x.importFormats.join(', '), x.exportFormat)}`), own.adaptersFooter),
  export: (r) => {
    if (r.envelopes) return renderExport(r.envelopes[0]).trimEnd()
    return typeof r.value === 'string' ? r.value : typeof r.value?.text === 'string' ? r.value.text : JSON.stringify(r.value, null, 2)
  },
  import: (r, t) => {
    if (r.dryRun) return lines(t.wouldImport(r.entries.length, fromText(r.from, t)), r.shown ?? r.entries.map((x) => entryLine(x, t)), layerSizes(r.entries, t))
    const done = `${t.imported(r.added, fromText(r.from, t))}${r.skipped ? t.skipped(r.skipped) : ''}${r.flagged?.length ? t.secret.leftOutShort(r.flagged.length) : ''}${t.importNote}`
    return r.shown ? lines(done, r.shown) : done
  },
}

/**
 * The text of a verb's result.
 * @param t the strings table's `cmd` (one language) @param surface '/memory' | 'dsh-memento'
 */
export const renderVerb = (verb, result, args, t, surface) => TEXT[verb](result, t, args, t[surface])
