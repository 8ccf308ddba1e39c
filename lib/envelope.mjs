// The `memory-export-v1` envelope: build it (export), check it (import), and import entries
// through gated `seed` calls.
//
// Export: `{plugin: 'dsh-memento', schema: 'memory-export-v1', exportedAt, budgets, entries}`,
// entries with every protocol field INCLUDING `sessionId` (the JS reference omitted it, D4), so
// the document validates against schemas/dsh-memory-protocol-v1.schema.json#/$defs/exportEnvelope.
// A store with more than `partSize` (1000) entries is exported as several envelopes that share
// `exportedAt` and carry `part: {index, count}` (1-based); written to one file they form a JSON
// array of envelopes ("multi-part document"), each item schema-valid on its own.
//
// Import: every document (a single envelope of any size, an array of parts, or several files) is
// validated completely before anything is written. Entries keep track, scope, text, source, tags
// and their workspace/agent keys, explicit '' included (B11 fixed). Ids, versions, timestamps,
// recall counters and sessionIds are renewed by `seed`, by protocol design.
//
// Any size: everything goes through ONE gated `seed` (one approval that shows every entry, one
// transaction, all or nothing; the provider checks each layer's budget before asking and again
// inside the transaction). A multi-part export is reassembled first. `skipExisting` leaves out
// entries the store already holds (same layer, keys and text), so re-running an import is safe.

import { parseJsonWithLines } from './adapters/util.mjs'
import { adapterPayload, invalidInput } from './errors.mjs'
import { native } from './native.mjs'

export const PLUGIN = 'dsh-memento'
export const EXPORT_SCHEMA = 'memory-export-v1'
/** Largest batch sent to one `seed` call (and the default export part size). */
export const MAX_IMPORT_ENTRIES = 1000
const ENTRY_KEYS = ['id', 'track', 'scope', 'workspaceKey', 'agentKey', 'text', 'source', 'tags', 'version', 'createdAt', 'updatedAt', 'lastRecalled', 'recallCount', 'sessionId']

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v)

/** One entry in export key order, `sessionId` included (null when unknown). */
export function exportEntry(entry) {
  const out = {}
  for (const k of ENTRY_KEYS) out[k] = k === 'tags' ? [...(entry.tags ?? [])] : k === 'sessionId' || k === 'lastRecalled' ? (entry[k] ?? null) : entry[k]
  return out
}

/**
 * Build export envelopes from entries and budget rows. One envelope (no `part`) when the entries
 * fit in `partSize`, otherwise `ceil(n / partSize)` envelopes with `part: {index, count}`.
 * @param {{entries: import('../index.d.ts').MemoryEntry[], budgets: import('../index.d.ts').BudgetRow[], exportedAt?: string, partSize?: number}} input
 * @returns {object[]} envelopes (always at least one)
 */
export function buildExport({ entries, budgets, exportedAt = new Date().toISOString(), partSize = MAX_IMPORT_ENTRIES }) {
  if (!Number.isInteger(partSize) || partSize < 1) throw invalidInput('export part size must be a positive integer')
  const rows = budgets.map(({ track, scope, used, limit }) => ({ track, scope, used, limit }))
  const all = entries.map(exportEntry)
  const head = { plugin: PLUGIN, schema: EXPORT_SCHEMA, exportedAt, budgets: rows }
  if (all.length <= partSize) return [{ ...head, entries: all }]
  const count = Math.ceil(all.length / partSize)
  return Array.from({ length: count }, (_, i) => ({ ...head, entries: all.slice(i * partSize, (i + 1) * partSize), part: { index: i + 1, count } }))
}

/**
 * Export a whole provider (every agent and workspace, `listEntries` order). Read-only: no gate, no audit.
 * @param {{listEntries(): object[], budgets(): object[]}} provider
 * @param {{exportedAt?: string, partSize?: number}} [opts]
 */
export function exportStore(provider, opts = {}) {
  return buildExport({ entries: provider.listEntries(), budgets: provider.budgets(), ...opts })
}

/**
 * Render envelopes as text: one envelope pretty-printed (2 spaces), several as a JSON array.
 * @param {object[]} envelopes
 */
export function renderExport(envelopes) {
  return `${JSON.stringify(envelopes.length === 1 ? envelopes[0] : envelopes, null, 2)}\n`
}

/**
 * Parse import text (a file's content or inline JSON). `label` names the source in messages.
 * Syntax errors are reported as JSON errors with a line number, never as "cannot read" (B13).
 * @returns {unknown} the parsed value (an envelope, or an array of envelopes)
 */
export function parseImportText(text, label = 'inline JSON') {
  try {
    return JSON.parse(text.replace(/^\uFEFF/, ''))
  } catch (e) {
    let line
    try { parseJsonWithLines(text) } catch (located) { line = located.line }
    throw invalidInput(`import: ${label} is not valid JSON${line ? ` (line ${line})` : ''}: ${e.message}`, line ? { line } : {})
  }
}

/**
 * Validate every entry input before anything is written (the provider's own parser, in the
 * addon); returns normalised copies.
 * Errors name the item: INVALID_INPUT `import: entries[i]: ...` by default, or ADAPTER_PAYLOAD
 * with `details.line` when `adapterId` (and the adapter's `locations`) are given.
 * @param {object[]} inputs
 * @param {{adapterId?: string, locations?: (number|null)[], label?: (i: number) => string}} [opts]
 */
export function validateEntryInputs(inputs, opts = {}) {
  if (!Array.isArray(inputs)) throw invalidInput('import: entries must be an array')
  const checked = native.validateEntryInputs(inputs)
  if (checked.inputs) return checked.inputs
  const { index: i, message } = checked
  if (opts.adapterId) {
    const line = opts.locations?.[i] ?? undefined
    throw adapterPayload(opts.adapterId, `converted entry ${i + 1} is not valid: ${message}`, line ? { line } : { path: `/${i}` })
  }
  const where = opts.label ? opts.label(i) : `entries[${i}]`
  throw invalidInput(`import: ${where}: ${message}`, { index: i })
}

/** EntryInput of an exported entry: keeps tags, source and keys (including explicit ''). */
export function entryToInput(e) {
  const out = { track: e.track, scope: e.scope, text: e.text }
  if (typeof e.source === 'string' && e.source) out.source = e.source
  if (Array.isArray(e.tags) && e.tags.length) out.tags = e.tags
  if (typeof e.workspaceKey === 'string') out.workspaceKey = e.workspaceKey
  if (typeof e.agentKey === 'string') out.agentKey = e.agentKey
  return out
}

/**
 * Check one or more parsed import documents and return the entry inputs, in part order.
 * Accepts a single envelope, an array of envelopes, or several of either (e.g. one per file).
 * Exports of the JS dsh-memento (no `sessionId`, no `part`) are accepted.
 * @param {unknown[]} docs parsed documents
 * @returns {{inputs: object[], documents: number, parts: number}}
 */
export function readEnvelopes(docs) {
  const envelopes = docs.flatMap((d) => (Array.isArray(d) ? d : [d]))
  if (envelopes.length === 0) throw invalidInput('import: the export document contains no entries')
  envelopes.forEach((env, n) => {
    if (!isObject(env) || env.plugin !== PLUGIN || env.schema !== EXPORT_SCHEMA || !Array.isArray(env.entries)) {
      const got = isObject(env) ? ` (got plugin ${JSON.stringify(env.plugin)}, schema ${JSON.stringify(env.schema)})` : ''
      throw invalidInput(`import: not a dsh-memento export document (expected schema "memory-export-v1")${envelopes.length > 1 ? ` in document ${n + 1}` : ''}${got}`)
    }
    if (env.part !== undefined) {
      const p = env.part
      if (!isObject(p) || !Number.isInteger(p.index) || !Number.isInteger(p.count) || p.index < 1 || p.index > p.count) {
        throw invalidInput(`import: document ${n + 1} has an invalid part ${JSON.stringify(p)} (expected {index, count} with 1 <= index <= count)`)
      }
    }
  })
  const parted = envelopes.filter((e) => e.part !== undefined)
  if (parted.length && parted.length !== envelopes.length) throw invalidInput('import: mixes multi-part documents with single documents; import them separately')
  let ordered = envelopes
  if (parted.length) {
    const { count } = parted[0].part
    const at = parted[0].exportedAt
    if (parted.some((e) => e.part.count !== count || e.exportedAt !== at)) throw invalidInput('import: the parts come from different exports (part count or exportedAt differ)')
    const seen = new Set(parted.map((e) => e.part.index))
    if (seen.size !== parted.length) throw invalidInput('import: a part was given twice')
    if (seen.size !== count) {
      const missing = Array.from({ length: count }, (_, i) => i + 1).filter((i) => !seen.has(i))
      throw invalidInput(`import: multi-part export is incomplete: missing part ${missing.join(', ')} of ${count} (exportedAt ${at}); pass every part`)
    }
    ordered = [...parted].sort((a, b) => a.part.index - b.part.index)
  }
  const raw = []
  const labels = []
  ordered.forEach((env, n) => {
    env.entries.forEach((e, i) => {
      raw.push(e)
      labels.push(ordered.length > 1 ? `document ${n + 1}${env.part ? ` (part ${env.part.index}/${env.part.count})` : ''} entries[${i}]` : `entries[${i}]`)
    })
  })
  if (raw.length === 0) throw invalidInput('import: the export document contains no entries')
  raw.forEach((e, i) => {
    if (!isObject(e) || typeof e.track !== 'string' || typeof e.scope !== 'string' || typeof e.text !== 'string' || e.text === '') {
      throw invalidInput(`import: every entry needs a string track, scope, and non-empty text (${labels[i]})`, { index: i })
    }
  })
  const inputs = validateEntryInputs(raw.map(entryToInput), { label: (i) => labels[i] })
  return { inputs, documents: envelopes.length, parts: parted.length ? parted[0].part.count : 1 }
}

const identity = (e, dflt = {}) => [
  e.track,
  e.scope,
  e.scope === 'user-global' ? '' : e.workspaceKey ?? dflt.workspaceKey ?? '',
  e.agentKey ?? dflt.agentKey ?? '',
  e.text,
].join('\u0000')

/**
 * Import validated entry inputs through one gated `seed`: one approval, one transaction, all or
 * nothing. Returns `{added, skipped, entries}`.
 * @param {{seed: Function, listEntries: Function}} provider
 * @param {object[]} inputs already validated (see `validateEntryInputs` / `readEnvelopes`)
 * @param {import('../index.d.ts').WriteContext} write
 * @param {{skipExisting?: boolean, defaultKeys?: {workspaceKey?: string, agentKey?: string}, onProgress?: (p: {phase: 'asking' | 'written', total: number, added?: number}) => void}} [opts]
 */
export async function importEntries(provider, inputs, write, opts = {}) {
  let todo = inputs
  let skipped = 0
  if (opts.skipExisting) {
    const have = new Set(provider.listEntries().map((e) => identity(e)))
    todo = inputs.filter((x) => !have.has(identity(x, opts.defaultKeys)))
    skipped = inputs.length - todo.length
  }
  if (todo.length === 0) return { added: 0, skipped, entries: [] }
  opts.onProgress?.({ phase: 'asking', total: todo.length })
  const res = await provider.seed(todo, write)
  opts.onProgress?.({ phase: 'written', total: todo.length, added: res.added })
  return { added: res.added, skipped, entries: res.entries }
}
