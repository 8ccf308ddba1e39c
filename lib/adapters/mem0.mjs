// mem0 <-> protocol entries. Pure: no I/O, no model.

import { createHash } from 'node:crypto'
import { adapterPayload } from '../errors.mjs'
import { finishTags, isObject, isScope, isTrack, labelToTag, parseJsonWithLines, placement } from './util.mjs'

const ID = 'mem0'

const toIso = (ms) => (Number.isInteger(ms) ? new Date(ms).toISOString() : undefined)

/**
 * Unwrap every real mem0 output shape into `[{value, pointer}]`.
 * Accepted: `{facts: [string | {memory, metadata?}]}` (extraction output and the JS reference's
 * shape), `{results: [...]}` (get_all/search, API v1.1; `relations` are reported, not imported),
 * `{memories: [...]}`, or a bare array of strings or memory objects. `{messages: [...]}` is raw
 * chat and is refused: extracting facts needs a model, and adapters never call one.
 */
function unwrap(root, warnings) {
  if (Array.isArray(root)) return { items: root, base: '' }
  if (isObject(root)) {
    for (const key of ['facts', 'results', 'memories']) {
      if (Array.isArray(root[key])) {
        if (Array.isArray(root.relations) && root.relations.length > 0) {
          warnings.push({ message: `${root.relations.length} graph relations were not imported (entries hold text, not edges)` })
        }
        return { items: root[key], base: `/${key}` }
      }
    }
    if (Array.isArray(root.messages)) {
      throw adapterPayload(ID, 'payload is raw chat messages ({messages: [...]}); adapters never extract facts with a model: run mem0 extraction first and pass {facts: [...]} or {results: [...]}', { path: '/messages' })
    }
    if (Array.isArray(root.memory)) {
      throw adapterPayload(ID, 'payload is a mem0 update decision ({memory: [{event, ...}]}), not a list of memories: pass the memories themselves ({results: [...]})', { path: '/memory' })
    }
  }
  throw adapterPayload(ID, 'payload must be an array or an object with one of: facts, results, memories')
}

/** JSON Lines (one memory object or string per line), or null when the text is not JSONL. */
function jsonLines(text) {
  const items = []
  const lines = []
  const rows = text.replace(/^\uFEFF/, '').split(/\r?\n/)
  for (let i = 0; i < rows.length; i++) {
    if (!rows[i].trim()) continue
    let v
    try { v = JSON.parse(rows[i]) } catch { return null }
    if (Array.isArray(v)) return null
    items.push(v)
    lines.push(i + 1)
  }
  return items.length > 1 ? { items, lines } : null
}

/**
 * @param {unknown} payload parsed JSON, or JSON / JSON Lines text (then errors carry line numbers)
 * @param {{track?: string, scope?: string, source?: string}} [options] defaults for items that carry none
 */
function adapt(payload, options = {}) {
  const warnings = []
  let root = payload
  let lineOf = () => undefined
  if (typeof payload === 'string') {
    try {
      const parsed = parseJsonWithLines(payload)
      root = parsed.value
      lineOf = parsed.lineOf
    } catch (e) {
      const jsonl = jsonLines(payload)
      if (!jsonl) throw adapterPayload(ID, `payload is not valid JSON: ${e.message}`, { line: e.line })
      root = jsonl.items
      lineOf = (p) => jsonl.lines[Number(p.slice(1))]
    }
  }
  const fallback = placement(ID, options, {}, { track: 'user', scope: 'user-global' })
  const { items, base } = unwrap(root, warnings)
  const entries = []
  const locations = []
  items.forEach((item, index) => {
    const path = `${base}/${index}`
    const line = lineOf(path)
    const where = line ? { line, path } : { path }
    let text
    let meta = {}
    let obj = {}
    if (typeof item === 'string') text = item
    else if (isObject(item)) {
      obj = item
      text = typeof item.memory === 'string' ? item.memory : typeof item.text === 'string' ? item.text : undefined
      if (item.metadata !== undefined && item.metadata !== null) {
        if (!isObject(item.metadata)) throw adapterPayload(ID, 'memory "metadata" must be an object', where)
        meta = item.metadata
      }
    } else {
      throw adapterPayload(ID, 'each memory must be a string or an object with a non-empty "memory" string', where)
    }
    if (typeof text !== 'string' || text.trim() === '') {
      throw adapterPayload(ID, 'each memory must be a string or an object with a non-empty "memory" string', where)
    }
    // Track: our own metadata wins; else mem0 identities (user_id -> user, agent_id only -> agent).
    let track = fallback.track
    if (isTrack(meta.track)) track = meta.track
    else if (options.track === undefined) {
      if (typeof obj.user_id === 'string' && obj.user_id) track = 'user'
      else if (typeof obj.agent_id === 'string' && obj.agent_id) track = 'agent'
    }
    const scope = isScope(meta.scope) ? meta.scope : fallback.scope
    const tagsIn = []
    for (const c of [meta.category, ...(Array.isArray(meta.categories) ? meta.categories : []), ...(Array.isArray(meta.tags) ? meta.tags : [])]) {
      if (typeof c === 'string' && c.trim()) tagsIn.push(labelToTag(c, warnings, line))
      else if (c !== undefined) warnings.push({ line, message: `ignored a non-string category/tag at ${path}` })
    }
    if (Array.isArray(obj.categories)) {
      for (const c of obj.categories) if (typeof c === 'string' && c.trim()) tagsIn.push(labelToTag(c, warnings, line))
    }
    const input = {
      track,
      scope,
      text,
      source: typeof meta.source === 'string' && meta.source ? meta.source : options.source ?? ID,
    }
    const tags = finishTags(tagsIn, warnings, line)
    if (tags.length) input.tags = tags
    if (typeof meta.workspace_key === 'string') input.workspaceKey = meta.workspace_key
    if (typeof meta.agent_key === 'string') input.agentKey = meta.agent_key
    entries.push(input)
    locations.push(line ?? null)
  })
  return { entries, warnings, locations }
}

/**
 * Export as mem0's own `get_all` shape, `{results: [...]}`; protocol fields ride in `metadata`
 * (`track`, `scope`, `source`, `tags`, `workspace_key`, `agent_key`, `version`, `session_id`),
 * so a round trip through this adapter keeps text, tags, track, scope, keys and source.
 */
function exportEntries(entries) {
  return {
    results: entries.map((e) => ({
      id: e.id,
      memory: e.text,
      hash: createHash('md5').update(e.text).digest('hex'),
      metadata: {
        track: e.track,
        scope: e.scope,
        source: e.source,
        tags: [...(e.tags ?? [])],
        workspace_key: e.workspaceKey ?? '',
        agent_key: e.agentKey ?? '',
        version: e.version,
        session_id: e.sessionId ?? null,
      },
      created_at: toIso(e.createdAt) ?? null,
      updated_at: toIso(e.updatedAt) ?? null,
    })),
  }
}

/** @type {import('./registry.mjs').MemoryAdapter} */
export const mem0Adapter = {
  id: ID,
  name: 'mem0 memories',
  description:
    'mem0 JSON: {facts: [string]}, {facts: [{memory, metadata}]}, {results: [...]} (get_all/search), {memories: [...]}, a bare array or JSON Lines; raw {messages} is refused. ' +
    'Import maps metadata.track/scope (else user_id -> user track, agent_id -> agent track), category/categories/tags -> tags. ' +
    'Export writes {results: [{id, memory, hash, metadata, created_at, updated_at}]}. ' +
    'Round trip ours -> mem0 -> ours keeps text, tags, track, scope, keys and source (in metadata); ids, versions, timestamps and recall counts are renewed by the import. ' +
    'Foreign mem0 data loses hash, score, run_id/app_id, user_id/agent_id identities and graph relations (reported).',
  version: '2.0.0',
  importFormats: ['mem0-facts', 'mem0-results', 'mem0-json'],
  exportFormat: 'mem0-results',
  adapt,
  export: exportEntries,
}
