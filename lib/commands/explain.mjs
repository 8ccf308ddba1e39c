// What an import that the provider refused says to the user: for BUDGET_EXCEEDED how far over
// which layer it is, which sections of the source fill it, and the ways forward; for a secret
// refusal every flagged entry (source line, kind, redacted excerpt) and how to import the rest.
// Built from the provider's error details and the inputs and origins the import holds; the
// error keeps its code and details (plus what is added here), only its message is the surface's.
import { entryRefusal } from '../envelope.mjs'
import { memoryError } from '../errors.mjs'
import { native } from '../native.mjs'

const layerKey = (scope) => (scope === 'user-global' ? 'userGlobal' : 'workspace')

/** Where input i came from, for a message: `CLAUDE.md line 12`, or an export document's `entries[3]`. */
const whereOf = (o = {}, i, t) => o.label ?? (o.file ? t.at(o.file, o.line) : t.entryNumber(i + 1))
/** The section an input belongs to: a memory-standard topic, else its tags (the source's headings). */
const sectionOf = (x, o = {}) => o.topic ?? (x.tags?.length ? x.tags.join(' › ') : null)

/** The inputs of each layer a batch writes: `Map<"track/scope/workspaceKey", {track, scope, workspaceKey, items}>`. */
function byLayer(inputs, keys) {
  const layers = new Map()
  inputs.forEach((x, i) => {
    const workspaceKey = x.scope === 'user-global' ? '' : (x.workspaceKey ?? keys?.workspaceKey ?? '')
    const k = `${x.track}/${x.scope}/${workspaceKey}`
    if (!layers.has(k)) layers.set(k, { track: x.track, scope: x.scope, workspaceKey, items: [] })
    layers.get(k).items.push(i)
  })
  return [...layers.values()]
}

/** The largest sections of a layer's items: `[{name, chars, entries, from, to, file}]`, biggest first. */
function sections(items, inputs, origins) {
  const groups = new Map()
  for (const i of items) {
    const name = sectionOf(inputs[i], origins[i])
    const g = groups.get(name) ?? { name, chars: 0, entries: 0, from: undefined, to: undefined, file: origins[i]?.file }
    g.chars += inputs[i].text.length
    g.entries += 1
    const line = origins[i]?.line
    if (line) {
      g.from = Math.min(g.from ?? line, line)
      g.to = Math.max(g.to ?? line, line)
    }
    groups.set(name, g)
  }
  return [...groups.values()].sort((a, b) => b.chars - a.chars)
}

/**
 * BUDGET_EXCEEDED of an import, explained. The provider names the layer (track, scope, used,
 * limit, needed) but not its workspace: the layer is the one whose usage plus this batch's share
 * is `needed`.
 */
function budgetError(e, { inputs, origins, provider, keys, t, own }) {
  const d = e.details
  const candidates = byLayer(inputs, keys).filter((l) => l.track === d.track && l.scope === d.scope)
  const adding = (l) => l.items.reduce((n, i) => n + inputs[i].text.length, 0)
  const usedIn = (l) =>
    provider.budgets(l.workspaceKey ? { workspaceKey: l.workspaceKey } : undefined).find((r) => r.track === l.track && r.scope === l.scope)
      ?.used
  const layer = candidates.find((l) => usedIn(l) + adding(l) === d.needed) ?? candidates.sort((a, b) => adding(b) - adding(a))[0]
  const name = `${d.track}/${d.scope}`
  const need = d.needed - d.used
  const top = layer ? sections(layer.items, inputs, origins).slice(0, 5) : []
  const rows = provider.budgets(keys?.workspaceKey ? { workspaceKey: keys.workspaceKey } : undefined)
  // --track/--scope move the whole import: name the layers it fits in whole
  const total = inputs.reduce((k, x) => k + x.text.length, 0)
  const room = rows
    .filter((r) => `${r.track}/${r.scope}` !== name && r.limit - r.used >= total)
    .map((r) => `${r.track}/${r.scope} ${r.limit - r.used}`)
  const text = [
    t.budget.head(name, need, Math.max(0, d.limit - d.used), d.limit, d.needed - d.limit),
    ...(top.length
      ? [
          t.budget.sections,
          ...top.map((s) =>
            t.budget.section(
              s.name ?? t.budget.noSection,
              s.file && s.from ? t.lines(s.file, s.from, s.to) : '',
              s.chars,
              s.entries,
              s.chars > d.limit,
            ),
          ),
        ]
      : []),
    t.budget.ways,
    own.budgetWays.raise(d.track, layerKey(d.scope), d.needed),
    own.budgetWays.move(room),
    own.budgetWays.dryRun,
  ].join('\n')
  return memoryError('BUDGET_EXCEEDED', text, {
    ...d,
    sections: top.map(({ name, chars, entries, from, to }) => ({
      ...(name ? { section: name } : {}),
      chars,
      entries,
      ...(from ? { fromLine: from, toLine: to } : {}),
    })),
  })
}

/** The lines naming flagged entries: where, kind, and the redacted excerpt. */
export const flaggedLines = (flagged, inputs, origins, t) =>
  flagged.map((f) =>
    t.secret.entry(whereOf(origins[f.index], f.index, t), sectionOf(inputs[f.index], origins[f.index]), f.kind, f.field, f.excerpt),
  )

/** A secret refusal of an import, with every flagged entry named and the way to import the rest. */
function secretError(e, flagged, { inputs, origins, t, own }) {
  if (!flagged.length) return e
  const text = [
    t.secret.head(flagged.length, inputs.length),
    ...flaggedLines(flagged, inputs, origins, t),
    own.secretWays(inputs.length - flagged.length),
  ].join('\n')
  return memoryError('INVALID_INPUT', text, {
    ...e.details,
    flagged: flagged.map((f) => ({ ...f, where: whereOf(origins[f.index], f.index, t) })),
  })
}

/**
 * The error an import shows for a refusal of its `seed` (others pass through unchanged).
 * @param {Error} e what the provider threw
 * @param {{inputs: object[], origins: object[], adapter?: string, provider, keys?, t, own}} ctx
 *   `t`: the strings table's `cmd`; `own`: the surface's part of it
 */
export function explainImportError(e, ctx) {
  const located = entryRefusal(e, ctx.origins, ctx.adapter)
  if (located !== e) return located
  if (e?.code === 'BUDGET_EXCEEDED' && e.details?.track) return budgetError(e, ctx)
  if (e?.code === 'INVALID_INPUT' && e.details?.reason === 'secret') return secretError(e, native.screenEntries(ctx.inputs), ctx)
  return e
}
