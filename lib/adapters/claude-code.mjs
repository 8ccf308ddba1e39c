// CLAUDE.md / AGENTS.md style markdown <-> protocol entries. Pure: no I/O, no model.
//
// Import rules (lenient, like Claude Code reads these files):
// - "## " .. "###### " headings become tags (the open heading path, outermost first); a "# " title
//   resets the path and is otherwise ignored, unless it names a layer ("# ... agent/workspace"),
//   which then places the entries below it (this is how our own export marks layers).
// - A bullet ("- ", "* ", "+ ", "1. ") is one entry; lines indented under it (blank lines
//   included) continue it with their newlines kept, so nested bullets stay with their parent.
// - Other consecutive lines form a paragraph entry (soft-wrapped lines joined with one space);
//   fenced code blocks stay verbatim, with their newlines.
// - "@path" import lines and auto-memory index links ("- [Title](topic.md) — hook") are reported,
//   never followed. YAML frontmatter "type: user" (auto-memory topic files) selects the user track.

import { adapterPayload } from '../errors.mjs'
import { SCOPES, TRACKS, finishTags, labelToTag, markdownPayload, placement, splitLines } from './util.mjs'

const ID = 'claude-code-memory-md'
const HEADING = /^(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/
const BULLET = /^( ?)([-*+]|\d{1,9}[.)])[ \t]+(.*)$/
const LAYER = /(?:^|[\s(:])(user|agent)\/(user-global|workspace)(?=$|[\s),.])/
const FENCE = /^\s{0,3}(`{3,}|~{3,})/
const MAX_EXPORT_TAGS = 5

function defaultScope(file) {
  return typeof file === 'string' && /^~[\\/]\.claude[\\/]/.test(file) ? 'user-global' : 'workspace'
}

function frontmatter(lines) {
  if (lines[0]?.trim() !== '---') return { skip: 0, fields: {} }
  const end = lines.findIndex((l, i) => i > 0 && l.trim() === '---')
  if (end < 0) return { skip: 0, fields: {} }
  const fields = {}
  for (const l of lines.slice(1, end)) {
    const m = /^([A-Za-z_][\w-]*):\s*(.*?)\s*$/.exec(l)
    if (m) fields[m[1]] = m[2].replace(/^["']|["']$/g, '')
  }
  return { skip: end + 1, fields }
}

/**
 * @param {string | {text: string, file?: string, track?: string, scope?: string}} payload
 * @param {{track?: string, scope?: string, file?: string, source?: string}} [options]
 */
function adapt(payload, options = {}) {
  const { text, file, hints } = markdownPayload(ID, payload)
  const lines = splitLines(text)
  const warnings = []
  const fm = frontmatter(lines)
  const fmTrack = fm.fields.type ? (fm.fields.type === 'user' ? 'user' : 'agent') : undefined
  const base = placement(ID, options, { ...hints, track: hints.track ?? fmTrack }, {
    track: 'agent',
    scope: defaultScope(options.file ?? file),
  })
  const source = options.source ?? ID
  if (fm.fields.paths !== undefined || fm.fields.globs !== undefined) {
    warnings.push({ line: 1, message: `frontmatter limits this rule to paths ${fm.fields.paths ?? fm.fields.globs}; entries have no path scope, so they apply to the whole ${base.scope}` })
  }
  let layer = { ...base }
  const fixedLayer = options.track !== undefined || options.scope !== undefined
  let path = [] // index 0 = "##"
  const entries = []
  const locations = []
  let block = null // {kind: 'bullet'|'para', text, line, indent, blanks, code}
  let fence = null

  const flush = () => {
    if (block) {
      const t = block.text.replace(/\s+$/, '')
      if (t.trim()) {
        const input = { track: layer.track, scope: layer.scope, text: t.replace(/^\s+/, ''), source }
        const tags = finishTags(path.filter(Boolean), warnings, block.line)
        if (tags.length) input.tags = tags
        entries.push(input)
        locations.push(block.line)
      }
    }
    block = null
  }

  for (let idx = fm.skip; idx < lines.length; idx++) {
    const raw = lines[idx]
    const n = idx + 1
    const blank = raw.trim() === ''
    if (fence) {
      block.text += `\n${raw}`
      if (new RegExp(`^\\s{0,3}${fence[0]}{${fence.length},}\\s*$`).test(raw)) {
        fence = null
        block.code = true
      }
      continue
    }
    if (block?.kind === 'bullet') {
      if (blank) { block.blanks++; continue }
      const lead = /^[ \t]*/.exec(raw)[0].replace(/\t/g, '    ').length
      if (lead >= 2) {
        let cut = raw
        for (let k = 0; k < block.indent && /^[ \t]/.test(cut); k++) cut = cut.slice(1)
        block.text += '\n'.repeat(block.blanks + 1) + cut
        block.blanks = 0
        continue
      }
      if (block.blanks === 0 && !HEADING.test(raw) && !BULLET.test(raw) && !FENCE.test(raw) && !raw.startsWith('@')) {
        block.text += ` ${raw.trim()}` // lazy continuation
        continue
      }
      flush()
    }
    if (blank) { flush(); continue }
    if (/^\s*<!--/.test(raw) && !raw.includes('-->')) {
      flush()
      while (idx + 1 < lines.length && !lines[idx].includes('-->')) idx++
      continue
    }
    // Setext heading: a one-line paragraph underlined with === (level 1) or --- (level 2).
    const setext = block?.kind === 'para' && !block.text.includes('\n') && !block.code && /^\s{0,3}(=+|-+)\s*$/.exec(raw)
    const h = setext ? [raw, setext[1][0] === '=' ? '#' : '##', block.text] : HEADING.exec(raw)
    if (setext) block = null
    if (h) {
      flush()
      const level = h[1].length
      if (level === 1) {
        path = []
        const m = LAYER.exec(h[2])
        if (m && !fixedLayer) layer = { track: m[1], scope: m[2] }
      } else {
        path = path.slice(0, level - 2)
        while (path.length < level - 2) path.push(null)
        path.push(labelToTag(h[2], warnings, n))
      }
      continue
    }
    if (/^@[^\s@]+/.test(raw.trim())) {
      flush()
      warnings.push({ line: n, message: `import ${JSON.stringify(raw.trim())} was not followed (adapters never read other files); import that file separately` })
      continue
    }
    if (/^\s*<!--.*-->\s*$/.test(raw) || /^\s{0,3}([-*_])(\s*\1){2,}\s*$/.test(raw)) { flush(); continue }
    const f = FENCE.exec(raw)
    if (f) {
      fence = f[1]
      if (block?.kind === 'para') block.text += `\n${raw}`
      else { flush(); block = { kind: 'para', text: raw, line: n } }
      continue
    }
    const b = BULLET.exec(raw)
    if (b) {
      flush()
      const body = b[3]
      const link = /^\[([^\]]+)\]\(([^)\s]+\.md)\)\s*(.*)$/.exec(body.trim())
      if (link) {
        warnings.push({ line: n, message: `index link to ${link[2]} (${link[1]}) was not followed; import that topic file separately` })
        continue
      }
      if (!body.trim()) continue
      block = { kind: 'bullet', text: body.trim(), line: n, indent: b[1].length + b[2].length + 1, blanks: 0 }
      continue
    }
    const row = /^\s*\|/.test(raw)
    if (block?.kind === 'para') {
      block.text += (block.code || row || block.table ? '\n' : ' ') + raw.trim()
      block.table = row
    } else { flush(); block = { kind: 'para', text: raw.trim(), line: n, table: row } }
  }
  if (fence) warnings.push({ message: 'a fenced code block was not closed before the end of the file; it was kept as text' })
  flush()
  return { entries, warnings, locations }
}

function cmpTags(a, b) {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1
  }
  return a.length - b.length
}

function bulletOf(text) {
  const lines = text.replace(/\r\n/g, '\n').trim().split('\n')
  return `- ${lines[0]}${lines.slice(1).map((l) => (l.trim() ? `\n  ${l}` : '\n')).join('')}`
}

/**
 * Export one markdown document: a "# dsh-memento memory: <track>/<scope>" title per layer, then
 * entries as bullets under "##".."######" headings built from their tags (first tag outermost).
 * Multi-line texts become indented continuation lines, so they come back with their newlines.
 * @returns {{plugin: string, text: string, warnings: object[]}}
 */
function exportEntries(entries) {
  const warnings = []
  const out = []
  for (const track of TRACKS) {
    for (const scope of SCOPES) {
      const layer = entries.filter((e) => e.track === track && e.scope === scope)
      if (!layer.length) continue
      out.push(`# dsh-memento memory: ${track}/${scope}`, '')
      const groups = new Map()
      for (const e of layer) {
        const tags = (e.tags ?? []).slice(0, MAX_EXPORT_TAGS)
        if ((e.tags ?? []).length > MAX_EXPORT_TAGS) {
          warnings.push({ message: `entry ${e.id ?? ''}: only its first ${MAX_EXPORT_TAGS} tags fit the heading levels; dropped ${(e.tags).slice(MAX_EXPORT_TAGS).join(', ')}` })
        }
        for (const t of tags) {
          if (HEADING.exec(`## ${t}`)?.[2] !== t) warnings.push({ message: `tag ${JSON.stringify(t)} does not survive as a heading` })
        }
        const key = JSON.stringify(tags)
        if (!groups.has(key)) groups.set(key, { tags, items: [] })
        groups.get(key).items.push(e)
      }
      let open = []
      for (const g of [...groups.values()].sort((a, b) => cmpTags(a.tags, b.tags))) {
        let common = 0
        while (common < open.length && common < g.tags.length && open[common] === g.tags[common]) common++
        for (let i = common; i < g.tags.length; i++) out.push(`${'#'.repeat(i + 2)} ${g.tags[i]}`, '')
        open = g.tags
        for (const e of g.items) out.push(bulletOf(e.text))
        out.push('')
      }
    }
  }
  return { plugin: ID, text: out.join('\n').replace(/\n+$/, '\n'), warnings }
}

/** @type {import('./registry.mjs').MemoryAdapter} */
export const claudeCodeAdapter = {
  id: ID,
  name: 'CLAUDE.md / AGENTS.md memory',
  description:
    'CLAUDE.md / AGENTS.md / Claude Code auto-memory markdown: bullets and paragraphs become entries, "##".."######" headings become tags, ' +
    'indented continuation lines keep newlines, fenced code stays verbatim; @imports and index links are reported, never followed. ' +
    'Default placement agent/workspace (~/.claude/... files: user-global; frontmatter type:user: user track). ' +
    'Export writes one document with a "# dsh-memento memory: <track>/<scope>" title per layer and tags as headings. ' +
    'Round trip keeps text, track, scope and up to 5 tags (in order); it loses keys, source, ids, timestamps, tags past the fifth, entry order across tag groups, and whitespace at the ends of a text.',
  version: '2.0.0',
  importFormats: ['claude-code-memory-md', 'agents-md', 'claude-auto-memory-md'],
  exportFormat: 'claude-code-memory-md',
  adapt,
  export: exportEntries,
}
