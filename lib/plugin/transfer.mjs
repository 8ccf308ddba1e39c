// Native export envelope and import validation (§8.1), with D4 (sessionId kept) and B11
// (empty keys and tags kept) fixed.
export const EXPORT_SCHEMA = 'memory-export-v1'
export const MAX_IMPORT_ENTRIES = 1000

const exportEntry = (e) => ({
  id: e.id,
  track: e.track,
  scope: e.scope,
  workspaceKey: e.workspaceKey,
  agentKey: e.agentKey,
  text: e.text,
  source: e.source,
  tags: e.tags ?? [],
  version: e.version,
  createdAt: e.createdAt,
  updatedAt: e.updatedAt,
  lastRecalled: e.lastRecalled ?? null,
  recallCount: e.recallCount ?? 0,
  sessionId: e.sessionId ?? null,
})

export function exportEnvelope(budgets, entries, now = new Date()) {
  return { plugin: 'dsh-memento', schema: EXPORT_SCHEMA, exportedAt: now.toISOString(), budgets, entries: entries.map(exportEntry) }
}

const fail = (message) => {
  const error = new Error(message)
  error.importError = true
  return error
}

/** Entry inputs from an export document; throws with the reference's `import: …` messages. */
export function importInputs(doc) {
  if (doc === null || typeof doc !== 'object' || doc.plugin !== 'dsh-memento' || doc.schema !== EXPORT_SCHEMA || !Array.isArray(doc.entries)) {
    throw fail(`import: not a dsh-memento export document (expected schema "${EXPORT_SCHEMA}")`)
  }
  return checkedInputs(
    doc.entries.map((e) => {
      if (e === null || typeof e !== 'object' || typeof e.track !== 'string' || typeof e.scope !== 'string' || typeof e.text !== 'string' || e.text.length === 0) {
        throw fail('import: every entry needs a string track, scope, and non-empty text')
      }
      const input = { track: e.track, scope: e.scope, text: e.text }
      if (typeof e.source === 'string' && e.source.length > 0) input.source = e.source
      // B11: '' is a real key (the shared layer / no workspace); keep it rather than re-keying.
      if (typeof e.workspaceKey === 'string') input.workspaceKey = e.workspaceKey
      if (typeof e.agentKey === 'string') input.agentKey = e.agentKey
      if (Array.isArray(e.tags) && e.tags.length > 0) input.tags = e.tags
      return input
    }),
  )
}

export function checkedInputs(inputs) {
  if (inputs.length === 0) throw fail('import: the export document contains no entries')
  if (inputs.length > MAX_IMPORT_ENTRIES) throw fail(`import: the export document has more than ${MAX_IMPORT_ENTRIES} entries; split it and import in batches`)
  return inputs
}
