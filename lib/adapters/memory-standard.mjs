// dsh-memory-standard ("mm" v1) <-> protocol entries. Pure: no I/O, no model.
//
// Layout: <root>/MEMORY.md (the index) + <root>/memories/<topic>.md (one note per topic). The
// payload is that directory as a file map: {files: {'MEMORY.md': text, 'memories/<topic>.md': text}}
// (paths relative to the root, POSIX separators). The CLI builds the map; the adapter reads nothing.
//
// Our export adds one header line to each note, "> mm-dsh: {json}", carrying track, scope, keys,
// source and the exact tags. mm readers treat it as header metadata (it never reaches the body),
// so the files stay valid mm v1; if an mm writer later rewrites a note, that line is dropped and
// the import falls back to the mm tags plus an "mm:<topic>" tag.

import { adapterPayload } from '../errors.mjs'
import {
  LINE_BREAK,
  codePoints,
  finishTags,
  isObject,
  isScope,
  isTrack,
  labelToTag,
  placement,
  splitLines,
  trimEndOf,
  utf8Bytes,
} from './util.mjs'

const ID = 'memory-standard'
const SLUG = /^[A-Za-z0-9][A-Za-z0-9._-]*$/
/** mm v1 defaults (the caps are Claude Code's MEMORY.md load limits). */
export const MM_DEFAULTS = { memoryId: 'local', indexLines: 200, indexBytes: 25600, detailMaxBytes: 65536, writeBudget: 4000 }
const META_KEYS = ['summary', 'tags', 'file', 'updated', 'budget']

/** `s` without newlines at its ends (/\n+$/ is quadratic in a run of newlines inside `s`). */
const trimNewlines = (s) => trimEndOf(s.replace(/^\n+/, ''), /\n/)
const isSlug = (s) => typeof s === 'string' && s.length <= 64 && SLUG.test(s)

/** mm tag normalisation: split on , ， ; ；, trim, inner whitespace -> '-', lowercase, dedupe. */
export function mmTags(value) {
  const out = new Set()
  for (const part of String(value).split(/[,，;；]/)) {
    const t = part.trim().replace(/\s+/g, '-').toLowerCase()
    if (t) out.add(t)
  }
  return [...out]
}

/** mm's slugForTopic: NFKC, lowercase, runs of other characters -> '-', at most 64. */
export function slugForTopic(text) {
  const s = trimEndOf(
    text
      .normalize('NFKC')
      .toLowerCase()
      .replace(/[^a-z0-9._-]+/g, '-')
      .replace(/^[-._]+/, ''),
    /-/,
  )
    .slice(0, 64)
    .replace(/[-._]+$/, '')
  return isSlug(s) ? s : ''
}

function checkFile(file, n) {
  const bad = !file || file.includes('\\') || file.startsWith('/') || /^[A-Za-z]:/.test(file) || file.split('/').includes('..')
  if (bad)
    throw adapterPayload(
      ID,
      `index entry file ${JSON.stringify(file)} must be a relative POSIX path inside the root (no "..", "\\", leading "/" or drive letter)`,
      { line: n, file: 'MEMORY.md' },
    )
}

/** A field line as [the match of `prefix`, the value], as /<prefix>\s*(.*)$/ reads it (see LINE_BREAK); [] when it is none. */
function field(line, prefix) {
  const m = prefix.exec(line)
  const value = m && line.slice(m[0].length).trimStart()
  return m && !LINE_BREAK.test(value) ? [m, value] : []
}

/**
 * A header line "> key: value" as [key, value], as /^>\s*(\S+?):\s*(.*)$/ reads it: the key is the
 * shortest that leaves a value with no LINE_BREAK past its leading spaces. That regex rescanned the
 * value for each colon of the key when a line break ends the line.
 */
function headerField(raw) {
  const m = /^>\s*(\S+)/.exec(raw)
  if (!m) return null
  const run = m[1]
  const start = m[0].length - run.length
  const lastBreak = Math.max(raw.lastIndexOf('\r'), raw.lastIndexOf('\u2028'), raw.lastIndexOf('\u2029'))
  // with a line break after the key, only a colon ending the key's run, with only spaces up to the break, leaves such a value
  const colon =
    lastBreak < start
      ? run.indexOf(':', 1)
      : run.endsWith(':') && !/\S/.test(raw.slice(start + run.length, lastBreak))
        ? run.length - 1
        : -1
  if (colon < 1) return null
  return [run.slice(0, colon), raw.slice(start + colon + 1).trimStart()]
}

/** Parse MEMORY.md (mm v1 §1.3). Entries in file order, with their line numbers. */
export function parseIndex(text) {
  const lines = splitLines(text)
  const header = {}
  const entries = []
  let cur = null
  lines.forEach((raw, idx) => {
    const n = idx + 1
    const h = /^##\s+(\S.*)$/.exec(raw)
    if (h) {
      const topic = h[1].trim()
      if (!isSlug(topic))
        throw adapterPayload(
          ID,
          `index heading ${JSON.stringify(raw)} is not a valid topic slug ([A-Za-z0-9][A-Za-z0-9._-]*, at most 64)`,
          { line: n, file: 'MEMORY.md' },
        )
      cur = { topic, line: n, summary: '', tags: [], file: `memories/${topic}.md`, updated: '', budget: [0, 0], bodyLines: [] }
      entries.push(cur)
      return
    }
    if (!cur) {
      const f = headerField(raw)
      if (f) header[f[0]] = f[1]
      return
    }
    const [m, value] = field(raw, /^-\s*\*\*(\w+):\*\*/)
    if (m && META_KEYS.includes(m[1])) {
      const key = m[1]
      if (key === 'summary') cur.summary = value.replace(/\s+/g, ' ').trim()
      else if (key === 'tags') cur.tags = mmTags(value)
      else if (key === 'file') {
        checkFile(value.trim(), n)
        cur.file = value.trim()
      } else if (key === 'updated') cur.updated = value.trim()
      else {
        const b = /^(\d+)\/(\d+)/.exec(value.trim())
        cur.budget = b ? [Number(b[1]), Number(b[2])] : [0, 0]
      }
      return
    }
    cur.bodyLines.push(raw)
  })
  for (const e of entries) e.entryBody = e.bodyLines.join('\n').trim()
  return { header, entries }
}

/** Parse a note (mm v1 §1.4): `{meta, body}`; a file with no mm header is all body. */
export function parseNote(text) {
  const lines = splitLines(text)
  const meta = {}
  let i = 0
  let count = 0
  let title = false
  for (; i < lines.length; i++) {
    const l = lines[i]
    if (!l.trim()) {
      if (count > 0) {
        i++
        break
      }
      continue
    }
    const [m, value] = field(l, /^>\s*mm-([\w-]+):/)
    if (m) {
      meta[m[1]] = value
      count++
      continue
    }
    if (!title && count === 0 && /^#\s/.test(l)) {
      title = true
      continue
    }
    break
  }
  if (count === 0) i = 0
  const body = trimNewlines(lines.slice(i).join('\n'))
  return { meta, body }
}

/**
 * @param {{files: Record<string, string>} | string} payload the root as a file map, or MEMORY.md text alone
 * @param {{track?: string, scope?: string, source?: string}} [options] placement for notes without an mm-dsh line
 */
function adapt(payload, options = {}) {
  let files
  if (typeof payload === 'string') files = { 'MEMORY.md': payload }
  else if (isObject(payload) && isObject(payload.files)) files = payload.files
  else
    throw adapterPayload(
      ID,
      'payload must be {files: {"MEMORY.md": ..., "memories/<topic>.md": ...}} (the memory root as a file map) or the MEMORY.md text',
    )
  if (typeof files['MEMORY.md'] !== 'string') throw adapterPayload(ID, 'the memory root has no MEMORY.md index', { file: 'MEMORY.md' })
  const warnings = []
  const defaults = placement(ID, options, {}, { track: 'agent', scope: 'user-global' })
  const { header, entries: index } = parseIndex(files['MEMORY.md'])
  if (header['mm-version'] !== undefined && header['mm-version'].trim() !== '1') {
    throw adapterPayload(ID, `unsupported mm-version ${JSON.stringify(header['mm-version'])} (this adapter reads mm v1)`, {
      file: 'MEMORY.md',
    })
  }
  const entries = []
  const locations = []
  const referenced = new Set()
  // mm resolves note paths case-insensitively inside the root: the first file of each lowercased
  // name, looked up once per topic (searching every file for every topic was quadratic)
  const byLowerName = new Map()
  for (const f of Object.keys(files)) if (!byLowerName.has(f.toLowerCase())) byLowerName.set(f.toLowerCase(), f)
  for (const item of index) {
    const key = item.file in files ? item.file : (byLowerName.get(item.file.toLowerCase()) ?? item.file)
    referenced.add(key)
    const noteText = files[key]
    if (typeof noteText !== 'string') {
      warnings.push({ line: item.line, message: `topic ${item.topic}: ${item.file} is missing (dangling index entry); not imported` })
      continue
    }
    const { meta, body } = parseNote(noteText)
    let dsh = null
    if (meta.dsh !== undefined) {
      try {
        dsh = JSON.parse(meta.dsh)
      } catch {
        dsh = null
      }
      if (!isObject(dsh))
        throw adapterPayload(ID, 'the "> mm-dsh:" header line is not a JSON object', {
          file: key,
          line: splitLines(noteText).findIndex((l) => /^>\s*mm-dsh:/.test(l)) + 1,
        })
    }
    let text = body
    const extra = item.entryBody
    if (!dsh && item.summary) {
      const flat = body.replace(/\s+/g, ' ')
      const probe = item.summary.replace(/…$/, '')
      if (!flat.includes(probe)) text = body ? `${item.summary}\n${body}` : item.summary
    }
    if (extra) text = text ? `${text}\n\n${extra}` : extra
    if (!text.trim()) {
      warnings.push({ line: item.line, message: `topic ${item.topic}: empty note; not imported` })
      continue
    }
    const track = options.track ?? (dsh && isTrack(dsh.track) ? dsh.track : defaults.track)
    const scope = options.scope ?? (dsh && isScope(dsh.scope) ? dsh.scope : defaults.scope)
    const input = { track, scope, text, source: options.source ?? (dsh && typeof dsh.source === 'string' && dsh.source ? dsh.source : ID) }
    let tags
    if (dsh && Array.isArray(dsh.tags)) tags = dsh.tags.filter((t) => typeof t === 'string')
    else tags = [...item.tags.map((t) => labelToTag(t, warnings, item.line)), labelToTag(`mm:${item.topic}`, warnings, item.line)]
    tags = finishTags(tags, warnings, item.line)
    if (tags.length) input.tags = tags
    if (dsh && typeof dsh.workspaceKey === 'string') input.workspaceKey = dsh.workspaceKey
    if (dsh && typeof dsh.agentKey === 'string') input.agentKey = dsh.agentKey
    entries.push(input)
    locations.push(item.line)
  }
  for (const f of Object.keys(files)) {
    if (/^memories\/[^/]+\.md$/.test(f) && !referenced.has(f))
      warnings.push({ message: `${f} is not referenced by MEMORY.md (orphan note); not imported` })
  }
  return { entries, warnings, locations }
}

function summaryOf(text) {
  const first = text.split('\n').find((l) => l.trim()) ?? ''
  const flat = first.replace(/\s+/g, ' ').trim()
  const cps = Array.from(flat)
  return cps.length > 120 ? `${cps.slice(0, 119).join('')}…` : flat
}

function topicOf(entry, index) {
  const tagged = (entry.tags ?? []).find((t) => t.startsWith('mm:') && isSlug(t.slice(3)))
  if (tagged) return tagged.slice(3)
  const words = entry.text.trim().split(/\s+/).slice(0, 6).join(' ')
  const slug = slugForTopic(words)
    .slice(0, 48)
    .replace(/[-._]+$/, '')
  if (slug) return slug
  return typeof entry.id === 'string' && entry.id ? `entry-${entry.id.slice(0, 8)}` : `entry-${index + 1}`
}

const countLines = (s) => (s === '' ? 0 : s.replace(/\n$/, '').split('\n').length)

/**
 * Export as an mm v1 root: `{plugin, files: {'MEMORY.md', 'memories/<topic>.md', ...}, usage}`.
 * Budgets are checked first (write budget, note bytes, index lines/bytes); any overflow is a loud
 * ADAPTER_PAYLOAD and nothing is returned, so a caller never writes a partial root.
 * @param {import('../../index.d.ts').MemoryEntry[]} entries
 * @param {{memoryId?: string, indexLines?: number, indexBytes?: number, detailMaxBytes?: number, writeBudget?: number}} [options]
 */
function exportEntries(entries, options = {}) {
  const o = { ...MM_DEFAULTS, ...options }
  if (!isSlug(o.memoryId)) throw adapterPayload(ID, `memoryId ${JSON.stringify(o.memoryId)} is not a valid slug`)
  const used = new Set()
  // the next number to try after each "<topic>-": starting again from 2 for every entry of one
  // topic was quadratic in how many share it
  const nextNumber = new Map()
  const items = entries.map((e, i) => {
    const base = topicOf(e, i)
    let topic = base
    if (used.has(topic.toLowerCase())) {
      const stem = base.slice(0, 60)
      let k = nextNumber.get(stem.toLowerCase()) ?? 2
      while (used.has(`${stem}-${k}`.toLowerCase())) k++
      topic = `${stem}-${k}`
      nextNumber.set(stem.toLowerCase(), k + 1)
    }
    used.add(topic.toLowerCase())
    return { e, topic }
  })
  const files = {}
  const blocks = []
  for (const { e, topic } of items.sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : 0))) {
    const file = `memories/${topic}.md`
    const body = trimNewlines(e.text)
    const bodyChars = codePoints(body)
    if (bodyChars > o.writeBudget) {
      throw adapterPayload(
        ID,
        `E_WRITE_BUDGET_EXCEEDED: topic ${topic} has ${bodyChars} chars, over the mm write budget ${o.writeBudget}; nothing was exported`,
        { path: `/${entries.indexOf(e)}` },
      )
    }
    const dsh = {
      track: e.track,
      scope: e.scope,
      workspaceKey: e.workspaceKey ?? '',
      agentKey: e.agentKey ?? '',
      source: e.source,
      tags: [...(e.tags ?? [])],
    }
    const note = `# ${topic}\n\n> mm-id: ${o.memoryId}\n> mm-version: 1\n> mm-kind: note\n> mm-topic: ${topic}\n> mm-file: ${file}\n> mm-dsh: ${JSON.stringify(dsh)}\n\n${body}\n`
    const noteBytes = utf8Bytes(note)
    if (noteBytes > o.detailMaxBytes) {
      throw adapterPayload(
        ID,
        `E_FILE_BUDGET_EXCEEDED: ${file} would be ${noteBytes} bytes, over the mm cap ${o.detailMaxBytes}; nothing was exported`,
        { path: `/${entries.indexOf(e)}` },
      )
    }
    files[file] = note
    const mm = mmTags((e.tags ?? []).filter((t) => !t.startsWith('mm:')).join(', '))
    const updated = Number.isInteger(e.updatedAt) ? new Date(e.updatedAt).toISOString() : ''
    blocks.push(
      `## ${topic}\n- **summary:** ${summaryOf(body)}\n- **tags:** ${mm.join(', ')}\n- **file:** ${file}\n- **updated:** ${updated}\n- **budget:** ${bodyChars}/${o.writeBudget}\n`,
    )
  }
  const head = `# MEMORY.md\n\nMemory Standard Index — hand-load priority; managed by dsh-memory-standard.\nHard caps: ${o.indexLines} lines / ${o.indexBytes} bytes. Over budget => rewrite (never truncate).\n\n> mm-id: ${o.memoryId}\n> mm-version: 1\n> mm-kind: index\n> mm-caps: ${o.indexLines} lines / ${o.indexBytes} bytes\n\n`
  const index = head + blocks.join('\n')
  const lines = countLines(index)
  const bytes = utf8Bytes(index)
  const usage = { entries: items.length, lines, bytes, lineCap: o.indexLines, byteCap: o.indexBytes }
  if (lines > o.indexLines || bytes > o.indexBytes) {
    const e = adapterPayload(
      ID,
      `E_INDEX_BUDGET_EXCEEDED: MEMORY.md would be ${lines} lines / ${bytes} bytes for ${items.length} topics, over the mm caps ${o.indexLines} lines / ${o.indexBytes} bytes (never truncated); export fewer entries (one track/scope) or consolidate first; nothing was exported`,
    )
    e.details.usage = usage
    throw e
  }
  return { plugin: ID, files: { 'MEMORY.md': index, ...files }, usage }
}

/** @type {import('./registry.mjs').MemoryAdapter} */
export const memoryStandardAdapter = {
  id: ID,
  name: 'dsh-memory-standard (mm v1)',
  description:
    'dsh-memory-standard mm v1 root: MEMORY.md index + memories/<topic>.md notes, passed as {files: {...}}. ' +
    'Import: one entry per index topic (note body, summary prepended when the body lacks it, extra index lines appended); tags = mm tags + "mm:<topic>"; default agent/user-global; dangling entries and orphan notes are reported. ' +
    'Export checks mm caps (write 4000 chars, note 64 KiB, index 200 lines / 25 KiB) before returning anything and adds a "> mm-dsh:" note header with track, scope, keys, source and exact tags. ' +
    'Round trip ours -> mm -> ours keeps text (minus leading/trailing newlines), tags, track, scope, keys and source; it loses ids, versions, timestamps and recall data, and everything but text and lowercased tags once an mm writer rewrites a note.',
  version: '1.0.0',
  importFormats: ['mm-v1-root', 'mm-v1-index'],
  exportFormat: 'mm-v1-root',
  adapt,
  export: exportEntries,
}
