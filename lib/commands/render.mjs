// Text of a verb's result, worded by the strings table (lib/strings.mjs `cmd`) and the
// surface's own syntax (`t[surface]`: usage lines and footers).
import { renderExport } from '../envelope.mjs'
import { native } from '../native.mjs'

/** Stored text as a terminal may show it: further lines indented, control characters (a `\r`, an escape sequence) written as escapes, never obeyed. */
export const shown = (text) => native.visibleLines(String(text ?? '')).join('\n  ')
const lines = (...xs) => xs.flat().join('\n')
/** A stored text on one line of at most `max` UTF-16 units (never cut inside a pair), its line breaks as ⏎: an audit row's excerpt. */
export function excerpt(text, max = 100) {
  const one = native.visibleLines(String(text ?? '')).join(' ⏎ ')
  if (one.length <= max) return one
  const cut = /[\ud800-\udbff]/.test(one[max - 1]) ? max - 1 : max
  return `${one.slice(0, cut)}…`
}
/** A stored text on lines of its own, indented under the line that names it. */
const indented = (text) => `    ${native.visibleLines(String(text ?? '')).join('\n    ')}`
const when = (ts) => new Date(ts).toISOString()

/** Where an entry (or a proposal, once approved) lives: `track/scope @workspace #agent`. */
const place = (e) =>
  `${e.track}/${e.scope}${e.scope === 'workspace' && e.workspaceKey ? ` @${shown(e.workspaceKey)}` : ''}${e.agentKey ? ` #${shown(e.agentKey)}` : ''}`

/** One entry: `- [track/scope @workspace #agent] text  (tags: …)`. */
function entryLine(e, t) {
  return `- [${place(e)}] ${shown(e.text)}${e.tags?.length ? t.tags(e.tags.map(shown)) : ''}`
}

const page = (r, t, full, partial) => [
  r.truncated ? partial(r.total, r.entries.length) : full(r.total),
  ...r.entries.map((e) => entryLine(e, t)),
]
/** A write's result: what changed, the layer's usage, and the stored entries its new text is like. */
const written = (head, r, t, action) =>
  lines(
    head,
    t.usage(r.usage.used, r.usage.limit),
    (r.similar ?? []).map((x) => t.similar(x.relation, shown(x.text), x.score.toFixed(2), x.reason, action)),
  )
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
/** One audit row: its seq (what `undo` and `history` take), when, what, who approved, and its text on one line. */
const auditLine = (r) =>
  `- #${r.seq} ${when(r.ts)} ${shown(r.action)}${r.track ? ` ${shown(r.track)}/${shown(r.scope)}` : ''} ${shown(r.outcome)} (${shown(r.source)})${r.text ? `: ${excerpt(r.text)}` : ''}`

/** An entry's versions, oldest first, each with the row that made it, then how it ended. */
function history(h, t) {
  if (!h.versions.length) return t.historyNone
  const last = h.versions.at(-1)
  return lines(
    t.historyHead(shown(h.entryId), place(last), h.versions.length),
    h.complete ? [] : t.historyPruned,
    h.versions.flatMap((v) => [
      `- v${v.version} #${v.seq} ${when(v.ts)} ${shown(v.action)}${v.reverts ? ` (${t.undoes(v.reverts)})` : ''} · ${shown(v.source)}${v.outcome ? ` · ${shown(v.outcome)}` : ''}`,
      `${indented(v.text)}${v.tags.length ? t.tags(v.tags.map(shown)) : ''}`,
    ]),
    h.ended ? t.historyEnded(h.ended.seq, when(h.ended.ts), h.ended.into && shown(h.ended.into)) : t.historyLive(last.version),
  )
}

/** Which workspace and agent a session saw. */
const sessionKeys = (s, t) => (s.workspaceKey === null ? t.sessionKeysUnknown : t.sessionKeys(shown(s.workspaceKey), shown(s.agentKey)))

/** A verification: the chain, then every record and layer that does not match the ledger. */
function verified(v, t) {
  if (v.ok) return t.auditVerified(v.checked, v.head)
  const chain = v.firstBroken ? t.auditBroken(v.firstBroken.seq, v.firstBroken.reason, v.checked) : t.auditVerified(v.checked, v.head)
  const records = (v.records?.mismatched ?? []).map((m) => t.auditRecord(m.table, shown(m.id), m.reason))
  const layers = (v.layers ?? []).map((l) => t.auditLayer(l.track, l.scope, shown(l.workspaceKey), l.recorded, l.actual))
  const stored = [...records, ...layers]
  return lines(chain, stored.length ? [t.auditStored(stored.length), ...stored] : [])
}

/** One way to change entries: what it does, why, and the entries it changes (full texts). */
function suggestion(x, t) {
  const what =
    x.action === 'consolidate' ? t.doctor.consolidate(x.entries.length, shown(x.input.text)) : t.doctor.remove(shown(x.entries[0]?.text))
  return [
    `${what} (${t.doctor.frees(x.frees)}; ${shown(x.why)})`,
    ...(x.action === 'consolidate' ? x.entries.map((e) => `    · ${shown(e.text)}`) : []),
  ]
}

/** A health finding: its id, kind, layer and why, the entries it is about, and its fix. */
function finding(f, t) {
  const where = place({ ...f, workspaceKey: f.scope === 'workspace' ? f.workspaceKey : undefined })
  const entries = f.fix?.action === 'consolidate' ? [] : f.entries.map((e) => `    · ${shown(e.text)}`)
  const fix = f.fix ? suggestion(f.fix, t).map((l, i) => (i === 0 ? `  ${t.doctor.fix}: ${l}` : l)) : []
  return [`- [${f.id}] ${t.doctor.kind[f.kind] ?? f.kind} ${where}: ${shown(f.detail)}`, ...entries, ...fix]
}

/** What a surface prints after a memory error's message: for a full layer, the writes that make room (each still asks for approval). */
export function errorHelp(e, t, surface) {
  const rooms = e.details?.suggestions ?? []
  return rooms.length
    ? [t.doctor.room, ...rooms.flatMap((x) => suggestion(x, t).map((l, i) => (i === 0 ? `- ${l}` : l))), t[surface].roomFooter]
    : []
}

const TEXT = {
  list: (r, t) => (r.total === 0 ? t.empty : lines(page(r, t, t.entries, t.entriesPartial))),
  query: (r, t, a) => (r.total === 0 ? t.noMatch(a.text) : lines(page(r, t, t.matches, t.matchesPartial))),
  budgets: (rows, t) =>
    lines(
      t.budgets,
      rows.map((b) => `- ${b.track}/${b.scope}: ${b.used}/${b.limit}`),
    ),
  audit: (r, t, _a, own) => {
    if (r.verify) return verified(r.verify, t)
    return r.rows.length === 0 ? t.auditEmpty : lines(t.audit(r.rows.length), r.rows.map(auditLine), own.auditFooter)
  },
  history: (h, t) => history(h, t),
  undo: (r, t) =>
    r.reverted === null
      ? t.nothingToUndo
      : lines(
          t.undone(r.reverted, r.changes.length),
          // a typed /memory undo: the change as it was approved, every field of every entry
          r.shown ?? r.changes.map((c) => `- ${t.undoChange[c.action]} [${place(c.entry)}] ${shown(c.entry.text)}`),
        ),
  sessions: (r, t, a, own) => {
    if (a.sessionId) {
      const [s] = r.sessions
      // the text exactly as the session was given it (a surface makes it visible, as all it prints)
      return s ? lines(t.session(shown(s.sessionId), when(s.ts), sessionKeys(s, t), s.chars), s.text) : t.noSession(shown(a.sessionId))
    }
    if (!r.sessions.length) return t.noSessions
    return lines(
      t.sessions(r.sessions.length),
      r.sessions.map((s) => `- ${shown(s.sessionId)} ${when(s.ts)} ${sessionKeys(s, t)}: ${t.chars(s.chars)}`),
      own.sessionsFooter,
    )
  },
  add: (r, t) => written(t.added(r.entry.track, r.entry.scope, shown(r.entry.text)), r, t, 'add'),
  remove: (r, t) => written(t.removed(r.entry.track, r.entry.scope, shown(r.entry.text)), r, t),
  replace: (r, t) => written(t.replaced(r.entry.track, r.entry.scope, shown(r.previous.text), shown(r.entry.text)), r, t, 'replace'),
  consolidate: (r, t) => written(t.consolidated(r.entry.track, r.entry.scope, r.removed.length, shown(r.entry.text)), r, t),
  proposals: (list, t, _a, own) =>
    // where an approval would land: its layer, workspace and agent
    list.length === 0
      ? t.noProposals
      : lines(
          t.proposals(list.length),
          list.map((p) => `- [${p.id}] ${place(p)}: ${shown(p.text)}  (${shown(p.kind)}, ${shown(p.source)})`),
          own.proposalsFooter,
        ),
  approve: (r, t) =>
    lines(t.approved(r.entry.track, r.entry.scope, shown(r.entry.text)), r.usage ? t.usage(r.usage.used, r.usage.limit) : []),
  dismiss: (_r, t, a) => t.dismissed(a.id),
  doctor: (r, t, a, own) => {
    if (r.finding) return lines(t.doctor.fixed(r.finding.id, t.doctor.kind[r.finding.kind] ?? r.finding.kind), TEXT[r.action](r.result, t))
    if (!r.findings.length) return t.doctor.healthy(r.checked)
    return lines(
      t.doctor.head(r.findings.length, r.checked),
      r.findings.flatMap((f) => finding(f, t)),
      r.findings.some((f) => f.fix) ? own.doctorFooter : [],
    )
  },
  adapters: (list, t, _a, own) =>
    list.length === 0
      ? t.noAdapters
      : lines(
          t.adapters(list.length),
          list.map(
            (x) =>
              `- ${x.id} (${x.name}, v${x.version}): ${x.description}\n  ${t.adapterFormats(x.importFormats.join(', '), x.exportFormat)}`,
          ),
          own.adaptersFooter,
        ),
  export: (r) => {
    if (r.envelopes) return renderExport(r.envelopes[0]).trimEnd()
    return typeof r.value === 'string' ? r.value : typeof r.value?.text === 'string' ? r.value.text : JSON.stringify(r.value, null, 2)
  },
  import: (r, t) => {
    if (r.dryRun)
      return lines(
        t.wouldImport(r.entries.length, fromText(r.from, t)),
        r.shown ?? r.entries.map((x) => entryLine(x, t)),
        layerSizes(r.entries, t),
      )
    const done = `${t.imported(r.added, fromText(r.from, t))}${r.skipped ? t.skipped(r.skipped) : ''}${r.flagged?.length ? t.secret.leftOutShort(r.flagged.length) : ''}${t.importNote}`
    return r.shown ? lines(done, r.shown) : done
  },
}

/**
 * The text of a verb's result.
 * @param t the strings table's `cmd` (one language) @param surface '/memory' | 'dsh-memento'
 */
export const renderVerb = (verb, result, args, t, surface) => TEXT[verb](result, t, args, t[surface])
