// Hermes agent memory files <-> protocol entries. Pure: no I/O, no model.
//
// Real Hermes stores (~/.hermes/memories/MEMORY.md = the agent's notes, USER.md = the user
// profile) hold entries separated by a line containing only "§" ("\n§\n"); an entry may span
// lines. The older "## section" + bullet form (what the JS reference adapter expected) is also read.

import { adapterPayload } from '../errors.mjs'
import { codePoints, labelToTag, markdownPayload, placement, splitLines } from './util.mjs'

const ID = 'hermes-memory-md'
/** Hermes per-store limits (Python `len`, i.e. code points). */
export const HERMES_LIMITS = { 'MEMORY.md': 2200, 'USER.md': 1375 }

const baseName = (p) => (typeof p === 'string' ? p.split(/[\\/]/).pop() : '')

/** USER.md (or target 'user') -> user track; MEMORY.md and anything else -> agent track. */
function defaultTrack(file, hints) {
  if (hints.target === 'user' || /^user\.md$/i.test(baseName(file))) return 'user'
  return 'agent'
}

function parseSections(lines, base, warnings) {
  const entries = []
  const locations = []
  // the section's tag, made once per section (made again for every bullet, a long heading over
  // many bullets was quadratic); a heading cut to a tag is warned about once, at its line
  let tag = null
  lines.forEach((raw, idx) => {
    const n = idx + 1
    const line = raw.trim()
    if (!line) return
    if (raw.startsWith('## ')) {
      tag = labelToTag(raw.slice(3), warnings, n)
      return
    }
    if (raw.startsWith('- ') || raw.startsWith('* ')) {
      const body = raw.slice(2).trim()
      if (!body) return
      const input = { track: base.track, scope: base.scope, text: body, source: base.source }
      if (tag) input.tags = [tag]
      entries.push(input)
      locations.push(n)
      return
    }
    const head = raw.length > 40 ? `${raw.slice(0, 40)}…` : raw
    throw adapterPayload(
      ID,
      `not a bullet (${JSON.stringify(head)}): the section form requires "## section" headings and "- " bullets; a real Hermes file separates entries with a "§" line instead (pass form "entries" to read this file as one entry)`,
      { line: n },
    )
  })
  return { entries, locations }
}

function parseSectionSigns(lines, base) {
  const entries = []
  const locations = []
  let buf = []
  let start = 1
  const flush = (endIdx) => {
    // Hermes strips each entry; inner lines stay verbatim.
    while (buf.length && !buf[0].trim()) {
      buf.shift()
      start++
    }
    const text = buf.join('\n').trim()
    if (text) {
      entries.push({ track: base.track, scope: base.scope, text, source: base.source })
      locations.push(start)
    }
    buf = []
    start = endIdx + 2
  }
  lines.forEach((raw, idx) => {
    if (raw.trim() === '§') flush(idx)
    else buf.push(raw)
  })
  flush(lines.length)
  return { entries, locations }
}

/**
 * @param {string | {text: string, file?: string, target?: 'user'|'memory', track?: string, scope?: string}} payload
 * @param {{track?: string, scope?: string, file?: string, form?: 'entries'|'sections'}} [options]
 */
function adapt(payload, options = {}) {
  const { text, file, hints } = markdownPayload(ID, payload)
  const warnings = []
  const lines = splitLines(text)
  const hasSign = lines.some((l) => l.trim() === '§')
  // The section form needs "## " headings; a file without "§" and without them is one entry.
  const sectionLike = !hasSign && lines.some((l) => l.startsWith('## ')) && lines.some((l) => l.startsWith('- ') || l.startsWith('* '))
  const form = options.form ?? hints.form ?? (sectionLike ? 'sections' : 'entries')
  if (form !== 'sections' && form !== 'entries')
    throw adapterPayload(ID, `form must be "entries" or "sections", got ${JSON.stringify(form)}`)
  const f = options.file ?? file
  const where = placement(ID, options, hints, {
    track: form === 'sections' ? 'user' : defaultTrack(f, hints),
    scope: 'user-global',
  })
  const base = { track: where.track, scope: where.scope, source: options.source ?? ID }
  const out = form === 'sections' ? parseSections(lines, base, warnings) : parseSectionSigns(lines, base)
  return { ...out, warnings }
}

function renderStore(list, name, warnings) {
  const texts = list.map((e) => e.text.replace(/\r\n/g, '\n').trim())
  texts.forEach((t, i) => {
    if (t.split('\n').some((l) => l.trim() === '§')) {
      throw adapterPayload(
        ID,
        `entry ${list[i].id ?? i} contains a line that is only "§", which is the Hermes entry separator; edit the entry first`,
        { path: `/${i}` },
      )
    }
  })
  const body = texts.join('\n§\n')
  const used = codePoints(body)
  if (used > HERMES_LIMITS[name]) {
    warnings.push({
      message: `${name} is ${used} chars; Hermes' default limit is ${HERMES_LIMITS[name]} (it evicts the oldest entries to ARCHIVE.jsonl when full). Nothing was cut here.`,
    })
  }
  return body ? `${body}\n` : ''
}

/**
 * Export as the two real Hermes files: user-track entries -> USER.md, agent-track -> MEMORY.md.
 * @returns {{plugin: string, files: {'MEMORY.md': string, 'USER.md': string}, warnings: object[]}}
 */
function exportEntries(entries) {
  const warnings = []
  const user = entries.filter((e) => e.track === 'user')
  const agent = entries.filter((e) => e.track !== 'user')
  return {
    plugin: ID,
    files: { 'MEMORY.md': renderStore(agent, 'MEMORY.md', warnings), 'USER.md': renderStore(user, 'USER.md', warnings) },
    warnings,
  }
}

/** @type {import('./registry.mjs').MemoryAdapter} */
export const hermesAdapter = {
  id: ID,
  name: 'Hermes memory files',
  description:
    'Hermes agent memory (~/.hermes/memories): entries separated by a "§" line; USER.md -> user track, MEMORY.md -> agent track, scope user-global ' +
    '(override with track/scope). The older "## section" + "- bullet" form is read too (sections become tags). ' +
    'Export writes {files: {"MEMORY.md", "USER.md"}} split by track and warns past Hermes limits (2200/1375 chars) without cutting. ' +
    'Round trip loses scope (all user-global), tags, keys, source, ids and timestamps, and trims whitespace at the ends of each entry; text and track survive.',
  version: '2.0.0',
  importFormats: ['hermes-memory-md', 'hermes-sections-md'],
  exportFormat: 'hermes-memory-md',
  adapt,
  export: exportEntries,
}
