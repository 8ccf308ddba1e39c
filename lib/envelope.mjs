// The `memory-export-v1` envelope: build it (export), check it (import), and import entries
// through gated `seed` calls.
//
// Export: `{plugin: 'dsh-memento', schema: 'memory-export-v1', exportedAt, budgets, entries}`,
// entries with every protocol field INCLUDING `sessionId` (the JS reference omitted it, D4), so
// the document validates against schemas/dsh-memory-protocol-v1.schema.json#/$defs/exportEnvelope,
// which caps one envelope at 1000 entries (§8). A larger store is exported as several envelopes,
// each a complete v1 envelope that imports on its own (also into the JS plugin), all sharing
// `exportedAt`; a manifest written beside them (`memory-export-manifest-v1`, our extension:
// schemas/dsh-memento-extensions-v1.schema.json#/$defs/exportManifest) lists every part with its
// entry count and sha256, so importing the set is one seed and a missing or altered part is refused.
//
// Import: every document (a single envelope of any size, a manifest's parts, or several files) is
// validated completely before anything is written. Entries keep track, scope, text, source, tags
// and their workspace/agent keys, explicit '' included (B11). Ids, versions, timestamps,
// recall counters and sessionIds are renewed by `seed`, by protocol design. Older dsh-memento
// exports numbered their parts with a `part: {index, count}` field (and wrote them as a JSON array):
// those are still read, and still checked for completeness.
//
// Any size: everything goes through ONE gated `seed` (one approval that shows every entry, one
// transaction, all or nothing; the provider checks each layer's budget before asking and again
// inside the transaction). `skipExisting` leaves out entries the store already holds (same layer,
// keys and text), so re-running an import is safe.

import { createHash } from 'node:crypto'
import { parseJsonWithLines } from './adapters/util.mjs'
import { adapterPayload, invalidInput } from './errors.mjs'
import { RULES } from './native.mjs'

export const PLUGIN = 'dsh-memento'
export const EXPORT_SCHEMA = 'memory-export-v1'
export const MANIFEST_SCHEMA = 'memory-export-manifest-v1'
/** Most entries one v1 envelope holds (one import is capped at 1000, §8): the export part size. */
export const MAX_IMPORT_ENTRIES = 1000
/** File names of an export written into a directory. */
export const EXPORT_FILE = 'memory-export.json'
export const MANIFEST_FILE = 'memory-export.manifest.json'
const ENTRY_KEYS = RULES.entryKeys

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v)

/** One entry in export key order, `sessionId` included (null when unknown). */
export function exportEntry(entry) {
  const out = {}
  for (const k of ENTRY_KEYS)
    out[k] = k === 'tags' ? [...(entry.tags ?? [])] : k === 'sessionId' || k === 'lastRecalled' ? (entry[k] ?? null) : entry[k]
  return out
}

/**
 * Build export envelopes from entries and budget rows: one envelope when the entries fit in
 * `partSize` (at most 1000), otherwise `ceil(n / partSize)` complete envelopes sharing `exportedAt`.
 * @param {{entries: import('../index.d.ts').MemoryEntry[], budgets: import('../index.d.ts').BudgetRow[], exportedAt?: string, partSize?: number}} input
 * @returns {object[]} envelopes (always at least one)
 */
export function buildExport({ entries, budgets, exportedAt = new Date().toISOString(), partSize = MAX_IMPORT_ENTRIES }) {
  if (!Number.isInteger(partSize) || partSize < 1 || partSize > MAX_IMPORT_ENTRIES)
    throw invalidInput(`export part size must be an integer from 1 to ${MAX_IMPORT_ENTRIES}`)
  const rows = budgets.map(({ track, scope, used, limit }) => ({ track, scope, used, limit }))
  const all = entries.map(exportEntry)
  const head = { plugin: PLUGIN, schema: EXPORT_SCHEMA, exportedAt, budgets: rows }
  const count = Math.max(1, Math.ceil(all.length / partSize))
  return Array.from({ length: count }, (_, i) => ({ ...head, entries: all.slice(i * partSize, (i + 1) * partSize) }))
}

const sha256 = (text) => createHash('sha256').update(text).digest('hex')
const pad = (i) => String(i).padStart(3, '0')

/**
 * The files of an export written into a directory: `memory-export.json` for one envelope;
 * otherwise `memory-export.part-NNN-of-MMM.json` per part plus `memory-export.manifest.json`.
 * @param {object[]} envelopes from `buildExport`
 * @returns {Record<string, string>} file name → content
 */
export function exportFiles(envelopes) {
  const text = (env) => `${JSON.stringify(env, null, 2)}\n`
  if (envelopes.length === 1) return { [EXPORT_FILE]: text(envelopes[0]) }
  const files = Object.fromEntries(
    envelopes.map((env, i) => [`memory-export.part-${pad(i + 1)}-of-${pad(envelopes.length)}.json`, text(env)]),
  )
  const parts = Object.entries(files).map(([file, content], i) => ({ file, entries: envelopes[i].entries.length, sha256: sha256(content) }))
  const manifest = {
    plugin: PLUGIN,
    schema: MANIFEST_SCHEMA,
    exportedAt: envelopes[0].exportedAt,
    entries: parts.reduce((n, p) => n + p.entries, 0),
    parts,
  }
  return { ...files, [MANIFEST_FILE]: text(manifest) }
}

/** Whether a parsed document is a multi-part export manifest. */
export const isManifest = (doc) => isObject(doc) && doc.plugin === PLUGIN && doc.schema === MANIFEST_SCHEMA

/**
 * The part documents a manifest lists, each checked against it (present, same bytes, same
 * `exportedAt` and entry count), so a set imports whole or not at all.
 * @param {object} manifest parsed manifest
 * @param {(file: string) => string | null} read a part file's text, null when it does not exist
 * @param {string} label names the manifest in messages
 * @returns {object[]} the parsed parts, in manifest order
 */
export function manifestParts(manifest, read, label = 'the manifest') {
  const parts = manifest.parts
  const okPart = (p) =>
    isObject(p) &&
    typeof p.file === 'string' &&
    /^[^/\\]+\.json$/.test(p.file) &&
    Number.isInteger(p.entries) &&
    typeof p.sha256 === 'string'
  if (!Array.isArray(parts) || parts.length === 0 || !parts.every(okPart) || typeof manifest.exportedAt !== 'string') {
    throw invalidInput(
      `import: ${label} is not a valid ${MANIFEST_SCHEMA} document (expected {exportedAt, entries, parts: [{file, entries, sha256}]})`,
    )
  }
  // each part once: a file listed many times would be read, hashed and parsed as often
  if (new Set(parts.map((p) => p.file)).size !== parts.length)
    throw invalidInput(`import: ${label} lists a part file more than once; nothing was imported`)
  const texts = parts.map((p) => read(p.file))
  const missing = parts.filter((_, i) => texts[i] === null).map((p) => p.file)
  if (missing.length)
    throw invalidInput(
      `import: the export is incomplete: ${label} lists ${parts.length} parts and ${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} missing; nothing was imported`,
    )
  return parts.map((p, i) => {
    if (sha256(texts[i]) !== p.sha256)
      throw invalidInput(
        `import: part ${p.file} is not the file ${label} lists (its sha256 differs: changed after the export?); nothing was imported`,
      )
    const doc = parseImportText(texts[i], JSON.stringify(p.file))
    if (!isObject(doc) || doc.exportedAt !== manifest.exportedAt || !Array.isArray(doc.entries) || doc.entries.length !== p.entries) {
      throw invalidInput(
        `import: part ${p.file} does not belong to the export of ${manifest.exportedAt} that ${label} describes; nothing was imported`,
      )
    }
    return doc
  })
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
 * Render one envelope as text (pretty-printed, 2 spaces). More than one does not fit in one
 * document: write them with `exportFiles` instead.
 * @param {object} envelope
 */
export function renderExport(envelope) {
  return `${JSON.stringify(envelope, null, 2)}\n`
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
    try {
      parseJsonWithLines(text)
    } catch (located) {
      line = located.line
    }
    throw invalidInput(`import: ${label} is not valid JSON${line ? ` (line ${line})` : ''}: ${e.message}`, line ? { line } : {})
  }
}

/**
 * A refusal of one entry of an import's `seed` (`INVALID_INPUT` with `details.index`: the
 * provider checks each entry, once) in the import's own words: `import: entries[3]: …` (or the
 * input's `label`), or with `adapterId` an `ADAPTER_PAYLOAD` naming the converted entry and its
 * source line. Any other error is returned as it is.
 * @param {unknown} e what the provider threw
 * @param {{label?: string, line?: number}[]} origins where each input came from
 * @param {string} [adapterId]
 */
export function entryRefusal(e, origins, adapterId) {
  const i = e?.code === 'INVALID_INPUT' ? e.details?.index : undefined
  if (!Number.isInteger(i)) return e
  const prefix = `entry ${i}: `
  const message = e.message.startsWith(prefix) ? e.message.slice(prefix.length) : e.message
  const o = origins[i] ?? {}
  if (adapterId)
    return adapterPayload(adapterId, `converted entry ${i + 1} is not valid: ${message}`, o.line ? { line: o.line } : { path: `/${i}` })
  return invalidInput(`import: ${o.label ?? `entries[${i}]`}: ${message}`, { index: i })
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
 * Check one or more parsed import documents and return the entry inputs, in order.
 * Accepts a single envelope, an array of envelopes, or several of either (e.g. one per file).
 * Exports of the JS dsh-memento (no `sessionId`) are accepted, and so are the `part`-numbered
 * multi-part exports of older dsh-memento versions (reassembled in part order, checked complete).
 * @param {unknown[]} docs parsed documents
 * @returns {{inputs: object[], labels: string[], documents: number, parts: number}} `labels[i]` names input i (`entries[3]`)
 */
export function readEnvelopes(docs) {
  const envelopes = docs.flatMap((d) => (Array.isArray(d) ? d : [d]))
  if (envelopes.length === 0) throw invalidInput('import: the export document contains no entries')
  envelopes.forEach((env, n) => {
    if (!isObject(env) || env.plugin !== PLUGIN || env.schema !== EXPORT_SCHEMA || !Array.isArray(env.entries)) {
      const got = isObject(env) ? ` (got plugin ${JSON.stringify(env.plugin)}, schema ${JSON.stringify(env.schema)})` : ''
      throw invalidInput(
        `import: not a dsh-memento export document (expected schema "memory-export-v1")${envelopes.length > 1 ? ` in document ${n + 1}` : ''}${got}`,
      )
    }
    if (env.part !== undefined) {
      const p = env.part
      if (!isObject(p) || !Number.isInteger(p.index) || !Number.isInteger(p.count) || p.index < 1 || p.index > p.count) {
        throw invalidInput(
          `import: document ${n + 1} has an invalid part ${JSON.stringify(p)} (expected {index, count} with 1 <= index <= count)`,
        )
      }
    }
  })
  const parted = envelopes.filter((e) => e.part !== undefined)
  if (parted.length && parted.length !== envelopes.length)
    throw invalidInput('import: mixes multi-part documents with single documents; import them separately')
  let ordered = envelopes
  if (parted.length) {
    const { count } = parted[0].part
    const at = parted[0].exportedAt
    if (parted.some((e) => e.part.count !== count || e.exportedAt !== at))
      throw invalidInput('import: the parts come from different exports (part count or exportedAt differ)')
    const seen = new Set(parted.map((e) => e.part.index))
    if (seen.size !== parted.length) throw invalidInput('import: a part was given twice')
    if (seen.size !== count) {
      // the first few missing: a count the document claims (1e9) is not a length to walk
      const missing = []
      for (let i = 1; i <= count && missing.length < 10; i++) if (!seen.has(i)) missing.push(i)
      const more = count - seen.size - missing.length
      throw invalidInput(
        `import: multi-part export is incomplete: missing part ${missing.join(', ')}${more ? ` and ${more} more` : ''} of ${count} (exportedAt ${at}); pass every part`,
      )
    }
    ordered = [...parted].sort((a, b) => a.part.index - b.part.index)
  }
  const raw = []
  const labels = []
  ordered.forEach((env, n) => {
    env.entries.forEach((e, i) => {
      raw.push(e)
      labels.push(
        ordered.length > 1
          ? `document ${n + 1}${env.part ? ` (part ${env.part.index}/${env.part.count})` : ''} entries[${i}]`
          : `entries[${i}]`,
      )
    })
  })
  if (raw.length === 0) throw invalidInput('import: the export document contains no entries')
  // What an entry must hold is the provider's rule, checked by its seed (see `entryRefusal`);
  // here only its shape.
  const bad = raw.findIndex((e) => !isObject(e))
  if (bad >= 0) throw invalidInput(`import: ${labels[bad]}: an entry must be an object`, { index: bad })
  return {
    inputs: raw.map(entryToInput),
    labels,
    documents: envelopes.length,
    parts: parted.length ? parted[0].part.count : envelopes.length,
  }
}

const identity = (e, dflt = {}) =>
  [
    e.track,
    e.scope,
    e.scope === 'user-global' ? '' : (e.workspaceKey ?? dflt.workspaceKey ?? ''),
    e.agentKey ?? dflt.agentKey ?? '',
    e.text,
  ].join('\u0000')

/**
 * Import validated entry inputs through one gated `seed`: one approval, one transaction, all or
 * nothing. Returns `{added, skipped, entries}`.
 * @param {{seed: Function, listEntries: Function}} provider
 * @param {object[]} inputs entry inputs (`readEnvelopes`, an adapter's); the provider checks them
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
