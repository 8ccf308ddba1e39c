// mem0 <-> protocol entries. Pure: no I/O, no model.

import { createHash } from 'node:crypto'
import { adapterPayload } from '../errors.mjs'
import { finishTags, isObject, isScope, isTrack, labelToTag, parseJsonWithLines, placement } from './util.mjs'

const ID = 'mem0'

const toIso = (ms) => (Number.isInteger(ms) ? new Date(ms).toISOString() : undefined)

/**
 * Unwrap every real mem0 output shape into `{items, base}` (`single`: the root is one memory).
 * Accepted: `{facts: [string | {memory, metadata?}]}` (extraction output and the JS reference's
 * shape), `{results: [...]}` (get_all/search, API v1.1, one page of a paginated get_all; the
 * platform's add response, whose items are `{event, data: {memory}}`; `relations` are reported,
 * not imported), `{memories: [...]}`, the mem0 CLI's `--json` output `{status, command, data}`,
 * a single memory object as `get()` returns it, or a bare array of strings or memory objects.
 * `{messages: [...]}` is raw chat and is refused: extracting facts needs a model, and adapters
 * never call one.
 */
function unwrap(root, warnings, base = '') {
  if (Array.isArray(root)) return { items: root, base }
  if (isObject(root)) {
    if (root.data !== undefined && typeof root.command === 'string') return unwrap(root.data, warnings, `${base}/data`)
    for (const key of ['facts', 'results', 'memories']) {
      if (Array.isArray(root[key])) {
        if (Array.isArray(root.relations) && root.relations.length > 0) {
          warnings.push({ message: `${root.relations.length} graph relations were not imported (entries hold text, not edges)` })
        }
        if (typeof root.next === 'string' && root.next) {
          warnings.push({
            message: `this is one page of a paginated get_all (${root[key].length} of ${Number.isInteger(root.count) ? root.count : 'more'} memories; next: ${root.next}): only this page is imported; fetch every page (or one page of page_size=count) and import them all`,
          })
        }
        return { items: root[key], base: `${base}/${key}` }
      }
    }
    if (typeof root.memory === 'string') return { items: [root], base, single: true }
    if (Array.isArray(root.messages)) {
      throw adapterPayload(
        ID,
        'payload is raw chat messages ({messages: [...]}); adapters never extract facts with a model: run mem0 extraction first and pass {facts: [...]} or {results: [...]}',
        { path: `${base}/messages` },
      )
    }
    if (Array.isArray(root.memory)) {
      throw adapterPayload(
        ID,
        'payload is a mem0 update decision ({memory: [{event, ...}]}), not a list of memories: pass the memories themselves ({results: [...]})',
        { path: `${base}/memory` },
      )
    }
  }
  throw adapterPayload(
    ID,
    'payload must be an array, a memory object, or an object with one of: facts, results, memories, data (mem0 CLI --json)',
  )
}

/** mem0's identities of a memory, each kept as a tag (`user:alice`) so mixed dumps stay apart. */
const IDENTITIES = [
  ['user_id', 'user'],
  ['agent_id', 'agent'],
  ['actor_id', 'actor'],
]

/** JSON Lines (one memory object or string per line), or null when the text is not JSONL. */
function jsonLines(text) {
  const items = []
  const lines = []
  const rows = text.replace(/^\uFEFF/, '').split(/\r?\n/)
  for (let i = 0; i < rows.length; i++) {
    if (!rows[i].trim()) continue
    let v
    try {
      v = JSON.parse(rows[i])
    } catch {
      return null
    }
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
  // the line of a value: by JSON pointer, or by the array holding it and its index
  let lineOf = () => undefined
  let lineIn = () => undefined
  if (typeof payload === 'string') {
    try {
      const parsed = parseJsonWithLines(payload)
      root = parsed.value
      lineOf = parsed.lineOf
      lineIn = parsed.lineIn
    } catch (e) {
      const jsonl = jsonLines(payload)
      if (!jsonl) throw adapterPayload(ID, `payload is not valid JSON: ${e.message}`, { line: e.line })
      root = jsonl.items
      lineIn = (_, index) => jsonl.lines[index]
    }
  }
  const fallback = placement(ID, options, {}, { track: 'user', scope: 'user-global' })
  const { items, base, single } = unwrap(root, warnings)
  const entries = []
  const locations = []
  const skipped = { DELETE: 0, NONE: 0, other: 0 }
  const seen = { user: new Set(), agent: new Set(), actor: new Set() }
  items.forEach((item, index) => {
    const path = single ? base : `${base}/${index}`
    const line = single ? lineOf(path) : lineIn(items, index)
    const where = line ? { line, path } : { path }
    let text
    let meta = {}
    let obj = {}
    if (typeof item === 'string') text = item
    else if (isObject(item)) {
      obj = item
      // An add/update result: only what mem0 kept lands. DELETE removed the fact, NONE changed
      // nothing; an UPDATE's text is the new one (`memory`), never `previous_memory`.
      if (typeof item.event === 'string' && item.event !== 'ADD' && item.event !== 'UPDATE') {
        if (item.event === 'DELETE' || item.event === 'NONE') skipped[item.event]++
        else skipped.other++
        return
      }
      const data = isObject(item.data) ? item.data : {}
      text = [item.memory, item.text, data.memory].find((t) => typeof t === 'string')
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
    for (const c of [
      meta.category,
      ...(Array.isArray(meta.categories) ? meta.categories : []),
      ...(Array.isArray(meta.tags) ? meta.tags : []),
    ]) {
      if (typeof c === 'string' && c.trim()) tagsIn.push(labelToTag(c, warnings, line))
      else if (c !== undefined) warnings.push({ line, message: `ignored a non-string category/tag at ${path}` })
    }
    if (Array.isArray(obj.categories)) {
      for (const c of obj.categories) if (typeof c === 'string' && c.trim()) tagsIn.push(labelToTag(c, warnings, line))
    }
    for (const [key, kind] of IDENTITIES) {
      const id = [obj[key], meta[key]].find((v) => typeof v === 'string' && v.trim())
      if (id === undefined) continue
      seen[kind].add(id.trim())
      tagsIn.push(labelToTag(`${kind}:${id.trim()}`, warnings, line))
    }
    const input = {
      track,
      scope,
      text,
      source: typeof meta.source === 'string' && meta.source ? meta.source : (options.source ?? ID),
    }
    const tags = finishTags(tagsIn, warnings, line)
    if (tags.length) input.tags = tags
    if (typeof meta.workspace_key === 'string') input.workspaceKey = meta.workspace_key
    if (typeof meta.agent_key === 'string') input.agentKey = meta.agent_key
    entries.push(input)
    locations.push(line ?? null)
  })
  const left = [
    skipped.DELETE && `${skipped.DELETE} DELETE result${skipped.DELETE === 1 ? '' : 's'} (mem0 removed those facts)`,
    skipped.NONE && `${skipped.NONE} NONE result${skipped.NONE === 1 ? '' : 's'} (nothing changed)`,
    skipped.other && `${skipped.other} result${skipped.other === 1 ? '' : 's'} with an unknown event`,
  ].filter(Boolean)
  if (left.length) warnings.push({ message: `not imported: ${left.join(', ')}; only ADD and UPDATE results land, with their new text` })
  for (const [kind, ids] of Object.entries(seen)) {
    if (ids.size > 1) {
      const shown = [...ids].slice(0, 5).join(', ')
      warnings.push({
        message: `${ids.size} different mem0 ${kind} identities mix in this payload (${shown}${ids.size > 5 ? ', …' : ''}): each memory keeps its own as a tag (${kind}:<id>), but all land on one track; if they are different people or agents, import each one's memories separately (--track / --scope)`,
      })
    }
  }
  if (entries.length === 0 && items.length > 0) {
    throw adapterPayload(ID, `no memory to import: ${left.join(', ') || 'every item was skipped'}`)
  }
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
    'mem0 JSON: {facts: [string]}, {facts: [{memory, metadata}]}, {results: [...]} (get_all/search, a get_all page (warned), add results: only ADD/UPDATE land, with their new text), {memories: [...]}, the CLI --json {status, command, data}, one memory object (get()), a bare array or JSON Lines; raw {messages} is refused. ' +
    'Import maps metadata.track/scope (else user_id -> user track, agent_id -> agent track), category/categories/tags -> tags, user_id/agent_id/actor_id -> tags user:<id>/agent:<id>/actor:<id> (several identities in one payload are warned about). ' +
    'Export writes {results: [{id, memory, hash, metadata, created_at, updated_at}]}. ' +
    'Round trip ours -> mem0 -> ours keeps text, tags, track, scope, keys and source (in metadata); ids, versions, timestamps and recall counts are renewed by the import. ' +
    'Foreign mem0 data loses hash, score, run_id/app_id and graph relations (reported).',
  version: '2.0.0',
  importFormats: ['mem0-facts', 'mem0-results', 'mem0-json'],
  exportFormat: 'mem0-results',
  adapt,
  export: exportEntries,
}
