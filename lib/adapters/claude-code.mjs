// CLAUDE.md / AGENTS.md style markdown <-> protocol entries. No model; files are read only
// through the readFile/realpath functions a caller passes with followImports.
//
// Import rules (lenient, like Claude Code reads these files):
// - "# " .. "###### " headings become tags (the open heading path, outermost first), except our
//   export's layer titles ("# dsh-memento memory: agent/workspace"), which place the entries below
//   them. A heading longer than a tag allows becomes several tags, split between words, and is
//   kept whole in the source ("claude-code-memory-md § <full heading>") for export.
// - A bullet ("- ", "* ", "+ ", "1. ", numbers kept) is one entry; lines indented under it (blank lines
//   included) continue it with their newlines kept, so nested bullets stay with their parent.
// - Other consecutive lines form a paragraph entry (soft-wrapped lines joined with one space);
//   fenced and indented code stays code, with its newlines; "> " quote markers are dropped.
// - A lead-in ("Key features:", "**Testing:**", a bold-only line) is one entry with the list,
//   code or paragraph it introduces.
// - "@path" import lines, and index links ("- [Title](topic.md) — hook") in an auto-memory
//   MEMORY.md (one in a memory/ directory), are reported, or followed with followImports
//   (relative to the file, at most 5 hops, each file once). Anywhere else link bullets are content.
//   The report names the headings the import sits under; followed, its entries get them as tags.
//   An "@path" line that continues a sentence (no blank line before it) stays in that text; an
//   "@path" in text is an import too (the text stays), but not in code spans or code, and a glob
//   ("@docs/*.md", a line of them too) is only text.
// - YAML frontmatter (auto-memory topic files; a field may sit under "metadata:"): "name" is a tag,
//   "description" the first line of the first entry, "type" the track (user -> user; feedback,
//   project, reference -> agent; another type is warned and placed as if absent).
// - Text must be UTF-8: bytes are decoded strictly (undecodable bytes are refused with their line;
//   a U+FFFD really in the file is text); a string holding U+FFFD is refused, since it cannot show
//   whether a lossy read left it there (pass the bytes).

import os from 'node:os'
import path from 'node:path'
import { adapterPayload } from '../errors.mjs'
import {
  LINE_BREAK,
  MAX_TAGS,
  append,
  MAX_TAG_LENGTH,
  cleanLabel,
  markdownPayload,
  placement,
  splitLines,
  tooManyTags,
  trimEndOf,
  utf8Text,
} from './util.mjs'
import { SCOPES, TRACKS } from '../native.mjs'

const ID = 'claude-code-memory-md'
const HEADING_START = /^(#{1,6})[ \t]+/
const FIELD = /^([ \t]*)([A-Za-z_][\w-]*):/
const BULLET = /^( {0,3})([-*+]|\d{1,9}[.)])[ \t]+(.*)$/
const LAYER_TITLE = /^dsh-memento memory: (user|agent)\/(user-global|workspace)$/
const FENCE = /^\s{0,3}(`{3,}|~{3,})/
const QUOTE = /^\s{0,3}>[ \t]?/
const IMPORT_LINE = /^@[^\s@]\S*(?:\s+@[^\s@]\S*)*$/
const INDEX_LINK = /^\[([^\]]+)\]\(([^)\s]+\.md)\)\s*(.*)$/
const LEAD_COLON = /[:：](?:\*\*|__|\*|_)?$/
const LEAD_BOLD = /^(\*\*|__)(?:(?!\1).)+\1$/
const GLOB = /[*?]/
const INVISIBLE = /[\s\u200b-\u200d\u2060\ufeff]/
const MENTION = /(?:^|\s)@([^\s@`"'()<>[\]]*[./][^\s@`"'()<>[\]]*)/g
const SECTION = ' § '
const MAX_EXPORT_TAGS = 5
const MAX_HOPS = 5
/** Auto-memory topic types (frontmatter "type") and the track each one's entries go to. */
const MEMORY_TYPES = { user: 'user', feedback: 'agent', project: 'agent', reference: 'agent' }

const isUserMemory = (file) => {
  if (/^~[\\/]\.claude[\\/]/.test(file)) return true
  const home = path.join(os.homedir(), '.claude') + path.sep
  const abs = path.resolve(file)
  return process.platform === 'win32' ? abs.toLowerCase().startsWith(home.toLowerCase()) : abs.startsWith(home)
}
const defaultScope = (file) => (typeof file === 'string' && isUserMemory(file) ? 'user-global' : 'workspace')
const isAutoMemoryIndex = (file) => typeof file === 'string' && /[\\/]memory[\\/]MEMORY\.md$/.test(path.resolve(file))
const indentOf = (raw) => /^[ \t]*/.exec(raw)[0].replace(/\t/g, '    ').length
/** "@a.md @b.md": a line of imports only; a glob ("@docs/*.md") names no file, so that line is text. */
const isImportLine = (raw) => IMPORT_LINE.test(raw.trim()) && !GLOB.test(raw)
/** A list item line, as BULLET matches it (a line holding a LINE_BREAK is none, and BULLET is quadratic on it). */
const bullet = (raw) => (LINE_BREAK.test(raw) ? null : BULLET.exec(raw))
const isSpace = (ch) => ch === ' ' || ch === '\t'
/**
 * An ATX heading line ("## Title ##") as {level, label}, else null: what
 * /^(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/ matches, read from both ends (that regex is quadratic
 * in a run of spaces inside the title).
 */
function atxHeading(raw) {
  const m = HEADING_START.exec(raw)
  if (!m || LINE_BREAK.test(raw)) return null
  const start = m[0].length
  let end = raw.length
  while (end > start && isSpace(raw[end - 1])) end--
  // a closing "#" run after a space or tab
  let hashes = end
  while (hashes > start && raw[hashes - 1] === '#') hashes--
  let before = hashes
  while (before > start && isSpace(raw[before - 1])) before--
  if (hashes < end && before < hashes) end = before
  return { level: m[1].length, label: raw.slice(start, end) }
}
const structural = (l) => bullet(l) || FENCE.test(l) || /^\s*\|/.test(l)

/**
 * YAML frontmatter as flat fields: "key: value", a key nested one level ("metadata:" then
 * "  type: feedback") as "metadata.type", a "|" or ">" block scalar as its lines; `at` holds
 * each field's line.
 */
function frontmatter(lines) {
  const fields = {}
  const at = {}
  if (lines[0]?.trim() !== '---') return { skip: 0, fields, at }
  const end = lines.findIndex((l, i) => i > 0 && l.trim() === '---')
  if (end < 0) return { skip: 0, fields, at }
  let parent = null
  for (let i = 1; i < end; i++) {
    const m = FIELD.exec(lines[i])
    if (!m) continue
    // trimmed by trim(): a regex /:\s*(.*?)\s*$/ is quadratic in a run of spaces inside the value
    let value = lines[i].slice(m[0].length).trim()
    if (LINE_BREAK.test(value)) continue // (no field)
    if (!m[1]) parent = value ? null : m[2]
    else if (!parent) continue
    const key = m[1] ? `${parent}.${m[2]}` : m[2]
    at[key] = i + 1
    if (/^[|>][-+]?$/.test(value)) {
      const body = []
      while (i + 1 < end && (!lines[i + 1].trim() || indentOf(lines[i + 1]) > m[1].length)) body.push(lines[++i].trim())
      value = body.join(value[0] === '|' ? '\n' : ' ').trim()
    }
    fields[key] = value.replace(/^(["'])(.*)\1$/, '$2')
  }
  return { skip: end + 1, fields, at }
}

/**
 * A heading as tags: itself, or when longer than a tag may be, pieces of at most 32 UTF-16 units
 * split between words (a longer word is cut, never inside a surrogate pair), so no word is lost.
 */
function headingTags(label) {
  const full = cleanLabel(label)
  if (full.length <= MAX_TAG_LENGTH) return full ? [full] : []
  const out = []
  let cur = ''
  for (const word of full.split(' ')) {
    if (cur && cur.length + 1 + word.length <= MAX_TAG_LENGTH) {
      cur += ` ${word}`
      continue
    }
    if (cur) out.push(cur)
    cur = ''
    for (const ch of word) {
      if (cur.length + ch.length > MAX_TAG_LENGTH) {
        out.push(cur)
        cur = ''
      }
      cur += ch
    }
  }
  if (cur) out.push(cur)
  return out
}

/** A heading as a message names it: at most 100 characters. */
function shortLabel(label) {
  if (label.length <= 100) return label
  return `${label.slice(0, 99).replace(/[\ud800-\udbff]$/, '')}…`
}

/**
 * Whether a heading cut into these tags is kept whole in the source, for export to join it again:
 * one cut in more pieces than an entry keeps tags could never be joined, so it is not.
 */
const keptWhole = (tags) => tags.length > 1 && tags.length <= MAX_TAGS

/**
 * The open sections as the entries under them see them, built once per heading (building them
 * again for every entry made a long heading over many entries quadratic): the first MAX_TAGS
 * distinct tags, how many distinct tags there are and the first ones past the cap (for the
 * warning), the cut headings the source keeps, and the headings' names for messages.
 * @param {object | null} parent the sections above
 * @param {{tags: string[], full: string}} section
 */
function sectionPath(parent, section) {
  const own = new Set()
  const has = (t) => own.has(t) || Boolean(parent?.has(t))
  const tags = [...(parent?.tags ?? [])]
  const dropped = [...(parent?.dropped ?? [])]
  let count = parent?.count ?? 0
  for (const t of section.tags) {
    if (!t || has(t)) continue
    own.add(t)
    count++
    if (tags.length < MAX_TAGS) tags.push(t)
    else if (dropped.length < MAX_TAGS) dropped.push(t)
  }
  const cut = keptWhole(section.tags) ? [...(parent?.cut ?? []), section.full] : (parent?.cut ?? [])
  return { has, tags, dropped, count, cut, names: [...(parent?.names ?? []), shortLabel(section.full)] }
}

/** Cut `n` columns of indentation (a tab counts as reaching the next multiple of 4). */
function dedent(raw, n) {
  let col = 0
  let i = 0
  while (i < raw.length && col < n && (raw[i] === ' ' || raw[i] === '\t')) {
    col = raw[i] === '\t' ? col + 4 - (col % 4) : col + 1
    i++
  }
  return raw.slice(i)
}

/**
 * Lines -> blocks: {type: 'heading'|'import'|'link'|'break'|'item'|'para'|'code'|'quote', line, ...}.
 * @param {string[]} lines
 * @param {number} start first line after the frontmatter
 * @param {boolean} autoIndex link bullets are index links
 * @param {object[]} warnings
 */
function scan(lines, start, autoIndex, warnings) {
  const blocks = []
  const comments = []
  let cur = null
  let fence = null
  const end = () => {
    if (cur) blocks.push(cur)
    cur = null
  }
  for (let idx = start; idx < lines.length; idx++) {
    const raw = lines[idx]
    const n = idx + 1
    const blank = raw.trim() === ''
    if (fence) {
      cur.text += `\n${raw}`
      if (new RegExp(`^\\s{0,3}${fence[0]}{${fence.length},}\\s*$`).test(raw)) {
        fence = null
        end() // text after the closing fence starts a new block
      }
      continue
    }
    if (cur?.type === 'item') {
      if (blank) {
        cur.blanks++
        continue
      }
      if (indentOf(raw) >= 2) {
        let cut = raw
        for (let k = 0; k < cur.indent && /^[ \t]/.test(cut); k++) cut = cut.slice(1)
        cur.text += '\n'.repeat(cur.blanks + 1) + cut
        cur.blanks = 0
        continue
      }
      if (cur.blanks === 0 && !atxHeading(raw) && !bullet(raw) && !FENCE.test(raw) && !QUOTE.test(raw) && !/^\s*<!--/.test(raw)) {
        cur.text += ` ${raw.trim()}` // lazy continuation (an "@path" line too: it continues the sentence)
        continue
      }
      end()
    }
    if (cur?.type === 'code') {
      if (blank) {
        cur.blanks++
        continue
      }
      if (indentOf(raw) >= 4) {
        append(cur.lines, Array(cur.blanks).fill(''))
        cur.lines.push(dedent(raw, 4))
        cur.blanks = 0
        continue
      }
      end()
    }
    if (cur?.type === 'quote') {
      if (QUOTE.test(raw)) {
        cur.lines.push(raw.replace(QUOTE, ''))
        continue
      }
      if (!blank && cur.lines.at(-1).trim() && !atxHeading(raw) && !structural(raw)) {
        cur.lines.push(raw.trim())
        continue
      }
      end()
    }
    if (blank) {
      end()
      continue
    }
    if (/^\s*<!--/.test(raw) && !raw.includes('-->')) {
      end()
      comments.push(n)
      while (idx + 1 < lines.length && !lines[idx].includes('-->')) idx++
      continue
    }
    // Setext heading: a paragraph of soft-wrapped lines (no newline in it) underlined with ===
    // (level 1) or --- (level 2); a sentence ("Never log tokens.") over --- is taken for text above
    // a rule, as people mean it.
    const setext = cur?.type === 'para' && !cur.broken && !cur.table && /^\s{0,3}(=+|-+)\s*$/.exec(raw)
    if (setext && setext[1][0] === '-' && /[.!?。！？:：]$/.test(cur.text)) end()
    else if (setext) {
      blocks.push({ type: 'heading', level: setext[1][0] === '=' ? 1 : 2, label: cur.text, line: cur.line })
      cur = null
      continue
    }
    const h = atxHeading(raw)
    if (h) {
      end()
      blocks.push({ type: 'heading', ...h, line: n })
      continue
    }
    // an "@path" line of its own (one that continues a paragraph is part of its sentence)
    if (isImportLine(raw) && cur?.type !== 'para') {
      end()
      for (const t of raw.trim().split(/\s+/)) blocks.push({ type: 'import', target: t.slice(1), line: n })
      continue
    }
    if (/^\s*<!--.*-->\s*$/.test(raw)) {
      // a note for people editing the file: not imported, and not a break (a lead-in above it still introduces what follows)
      end()
      comments.push(n)
      continue
    }
    if (/^\s{0,3}([-*_])(\s*\1){2,}\s*$/.test(raw)) {
      end()
      blocks.push({ type: 'break', line: n })
      continue
    }
    const f = FENCE.exec(raw)
    if (f) {
      fence = f[1]
      if (cur?.type === 'para') cur.text += `\n${raw}`
      else {
        end()
        cur = { type: 'para', text: raw, line: n }
      }
      continue
    }
    const b = bullet(raw)
    if (b) {
      end()
      const body = b[3].trim()
      const link = autoIndex && INDEX_LINK.exec(body)
      if (link && !/^[a-z][a-z0-9+.-]*:/i.test(link[2])) {
        blocks.push({ type: 'link', target: link[2], title: link[1], line: n })
        continue
      }
      if (!body) continue
      const ordered = /\d/.test(b[2])
      cur = {
        type: 'item',
        marker: b[2],
        ordered,
        text: ordered ? `${b[2]} ${body}` : body,
        line: n,
        indent: b[1].length + b[2].length + 1,
        blanks: 0,
      }
      continue
    }
    if (QUOTE.test(raw)) {
      end()
      cur = { type: 'quote', lines: [raw.replace(QUOTE, '')], line: n }
      continue
    }
    if (!cur && indentOf(raw) >= 4) {
      cur = { type: 'code', lines: [dedent(raw, 4)], blanks: 0, line: n }
      continue
    }
    const row = /^\s*\|/.test(raw)
    if (cur?.type === 'para') {
      // `broken`: the text holds a newline, kept as a flag (searching the growing text for one on
      // every line made a long paragraph quadratic); a paragraph with a fence ends at the fence
      if (row || cur.table) cur.broken = true
      cur.text += (row || cur.table ? '\n' : ' ') + raw.trim()
      cur.table = row
    } else {
      end()
      cur = { type: 'para', text: raw.trim(), line: n, table: row }
    }
  }
  if (fence) warnings.push({ message: 'a fenced code block was not closed before the end of the file; it was kept as text' })
  if (comments.length)
    warnings.push({
      line: comments[0],
      message: `HTML comments (notes for people editing the file) were not imported: line${comments.length > 1 ? 's' : ''} ${comments.join(', ')}`,
    })
  end()
  return blocks
}

/** Quote lines (markers gone): soft-wrapped lines joined with a space, structure kept. */
function quoteText(lines) {
  let out = ''
  let prev = ''
  for (const l of lines) {
    const t = l.trimEnd()
    if (!out) out = t.trim()
    else if (!t.trim()) out += '\n'
    else out += (!prev.trim() || structural(t) || structural(prev) ? '\n' : ' ') + (structural(t) ? t : t.trim())
    prev = t
  }
  return out.replace(/\n{3,}/g, '\n\n').trimEnd()
}

function textOf(b) {
  if (b.type === 'code') {
    const body = b.lines.join('\n')
    const ticks = '`'.repeat((body.match(/`{3,}/g) ?? []).reduce((n, m) => Math.max(n, m.length + 1), 3))
    return `${ticks}\n${body}\n${ticks}`
  }
  if (b.type === 'quote') return quoteText(b.lines)
  return b.text.trim()
}

/**
 * `text` without its fenced code: from a line starting with 3+ backticks or tildes to the first
 * later line starting with as many (when none does, with as many as the longest later run), as
 * /^(`{3,}|~{3,})[^\n]*\n[\s\S]*?^\1[^\n]*$/gm cut it. That regex rescanned the rest of the text
 * for each fence it could not close, and for each shorter run it backtracked to: quadratic.
 */
function withoutFences(text) {
  let nl = text.indexOf('\n')
  const fences = [...text.matchAll(/^(?:`{3,}|~{3,})/gm)].map((m) => {
    if (nl !== -1 && nl < m.index) nl = text.indexOf('\n', m.index)
    return { at: m.index, ch: m[0][0], run: m[0].length, eol: nl }
  })
  // after[i]: the first fence on a line after fence i's; longest[ch][j]: the longest run of ch from fence j on
  const after = []
  for (let i = 0, j = 0; i < fences.length; i++) {
    while (j < fences.length && (fences[i].eol === -1 || fences[j].at <= fences[i].eol)) j++
    after.push(j)
  }
  const longest = { '`': Array(fences.length + 1).fill(0), '~': Array(fences.length + 1).fill(0) }
  for (let j = fences.length - 1; j >= 0; j--) {
    for (const ch of ['`', '~']) longest[ch][j] = fences[j].ch === ch ? Math.max(fences[j].run, longest[ch][j + 1]) : longest[ch][j + 1]
  }
  let out = ''
  let from = 0
  for (let i = 0; i < fences.length; i++) {
    const f = fences[i]
    const most = longest[f.ch][after[i]]
    if (f.at < from || !most) continue
    const run = Math.min(f.run, most)
    let k = after[i]
    while (fences[k].ch !== f.ch || fences[k].run < run) k++
    out += text.slice(from, f.at)
    from = fences[k].eol === -1 ? text.length : fences[k].eol
    i = k
  }
  return out + text.slice(from)
}

/**
 * `text` with each code span (a run of backticks to the next run of exactly as many) as a space,
 * as /(?<!`)(`+)(?!`)[\s\S]*?(?<!`)\1(?!`)/g did, without rescanning the rest of the text for each
 * run that has no partner.
 */
function withoutCodeSpans(text) {
  const runs = [...text.matchAll(/`+/g)]
  const next = [] // the next run as long as run i
  const last = new Map()
  for (let i = runs.length - 1; i >= 0; i--) {
    next[i] = last.get(runs[i][0].length)
    last.set(runs[i][0].length, i)
  }
  let out = ''
  let from = 0
  for (let i = 0; i < runs.length; i++) {
    const j = next[i]
    if (j === undefined) continue
    out += `${text.slice(from, runs[i].index)} `
    from = runs[j].index + runs[j][0].length
    i = j
  }
  return out + text.slice(from)
}

/**
 * Path-like "@x/y" or "@x.md" mentions outside code, as Claude Code reads them: not in fenced code
 * or a code span (of any number of backticks), not e-mail addresses ("@" starts a word), not globs.
 */
function mentions(body) {
  const prose = withoutCodeSpans(withoutFences(body))
  return [...prose.matchAll(MENTION)].map((m) => trimEndOf(m[1], /[.,;:!?]/)).filter((t) => /[./]/.test(t) && !GLOB.test(t))
}

/** An item as a markdown list line again (when it joins a lead-in's entry). */
const itemMarkdown = (b) => {
  const lines = textOf(b)
    .split('\n')
    .map((l, i) => (i && l.trim() ? `${' '.repeat(b.marker.length + 1)}${l}` : l))
  return b.ordered ? lines.join('\n') : `${b.marker} ${lines.join('\n')}`
}
// (an invisible character after the colon does not hide it)
const isLeadIn = (b) =>
  (b.type === 'item' || b.type === 'para') &&
  ((t) => LEAD_COLON.test(t) || LEAD_BOLD.test(t))(trimEndOf(textOf(b).split('\n').at(-1), INVISIBLE))
const CONTENT = new Set(['item', 'para', 'code', 'quote'])

/**
 * @param {string | Uint8Array | {text: string, file?: string, track?: string, scope?: string}} payload
 * @param {{track?: string, scope?: string, file?: string, source?: string, followImports?: boolean,
 *   readFile?: (path: string) => string | Uint8Array, realpath?: (path: string) => string, visited?: Set<string>}} [options]
 *   followImports reads "@path" imports (and auto-memory index links) with readFile, relative to
 *   `file`; `visited` (realpaths) may be shared across calls so each file is imported once.
 */
function adapt(payload, options = {}) {
  const { text: data, file, hints } = payload instanceof Uint8Array ? { text: payload, hints: {} } : markdownPayload(ID, payload)
  const text = utf8Text(ID, data)
  if (options.followImports && typeof options.readFile !== 'function') {
    throw adapterPayload(ID, 'followImports needs a readFile(path) option (the adapter reads no files by itself)')
  }
  const root = options.file ?? file
  const visited = options.visited ?? new Set()
  if (options.followImports && root) {
    const key = canonical(options, root)
    if (visited.has(key))
      return {
        entries: [],
        warnings: [{ message: 'this file was already imported through an @import of another file; it is imported once' }],
        locations: [],
      }
    visited.add(key)
  }
  return parse(text, { options, file: root, hints, visited, hops: 0, rootDir: root ? path.dirname(path.resolve(root)) : undefined })
}

function canonical(options, p) {
  try {
    return options.realpath ? options.realpath(p) : path.resolve(p)
  } catch {
    return path.resolve(p)
  }
}

function parse(text, ctx) {
  const { options } = ctx
  const lines = splitLines(text)
  const warnings = []
  const fm = frontmatter(lines)
  // auto-memory fields, at the top level or under "metadata:"
  const field = (k) => [k, `metadata.${k}`].map((key) => ({ key, value: fm.fields[key] })).find((f) => f.value)
  const type = field('type')
  const fmTrack = type && MEMORY_TYPES[type.value.toLowerCase()]
  const base = ctx.inherit
    ? placement(ID, options, { track: fmTrack }, ctx.inherit)
    : placement(ID, options, { ...ctx.hints, track: ctx.hints.track ?? fmTrack }, { track: 'agent', scope: defaultScope(ctx.file) })
  if (type && !fmTrack) {
    warnings.push({
      line: fm.at[type.key],
      message: `frontmatter type ${JSON.stringify(type.value)} is not an auto-memory type (${Object.keys(MEMORY_TYPES).join(', ')}); its entries go to the ${base.track} track`,
    })
  }
  if (fm.fields.paths !== undefined || fm.fields.globs !== undefined) {
    warnings.push({
      line: 1,
      message: `frontmatter limits this rule to paths ${fm.fields.paths ?? fm.fields.globs}; entries have no path scope, so they apply to the whole ${base.scope}`,
    })
  }
  const fixedLayer = options.track !== undefined || options.scope !== undefined
  const blocks = scan(lines, fm.skip, isAutoMemoryIndex(ctx.file), warnings)
  let layer = { ...base }
  let trail = [] // index 0 = "#": a sectionPath, or null
  // the sections an import sits in (imported entries are tagged as if written there), then an
  // auto-memory topic's frontmatter name, its title like a "# " heading
  const name = field('name')?.value
  const nameTags = name ? headingTags(name) : []
  const top = nameTags.length ? sectionPath(ctx.outer ?? null, { tags: nameTags, full: cleanLabel(name) }) : (ctx.outer ?? null)
  // a topic's frontmatter description is the first line of its first entry
  const description = field('description')
  let lead = description?.value
  const entries = []
  const locations = []
  const { visited } = ctx
  const open = () => trail.findLast(Boolean) ?? top

  const emit = (body, line) => {
    if (lead) {
      body = body ? `${lead}\n${body}` : lead
      lead = undefined
    }
    const input = { track: layer.track, scope: layer.scope, text: body, source: options.source ?? ID }
    const sections = open()
    if (sections?.count > MAX_TAGS) warnings.push({ line, message: tooManyTags(sections.count, sections.dropped) })
    if (sections?.tags.length) input.tags = [...sections.tags]
    if (sections?.cut.length && options.source === undefined) input.source = `${ID}${SECTION}${sections.cut.join(SECTION)}`
    entries.push(input)
    locations.push(line)
  }

  const follow = (b) => {
    const names = open()?.names ?? []
    const under = names.length ? ` under ${JSON.stringify(names.join(' > '))}` : ''
    const what =
      b.type === 'link'
        ? `index link to ${b.target} (${b.title})${under}`
        : `${b.inline ? 'inline ' : ''}import ${JSON.stringify(`@${b.target}`)}${under}${b.inline ? ' (the text is kept)' : ''}`
    const skip = (why) => warnings.push({ line: b.line, message: `${what} was not followed${why}` })
    if (!options.followImports) return skip('; pass --follow-imports (option followImports) to import it, or import that file separately')
    if (ctx.hops >= MAX_HOPS) return skip(`: it is more than ${MAX_HOPS} hops from the first file (Claude Code's import limit)`)
    let abs
    if (b.target.startsWith('~/')) abs = path.join(os.homedir(), b.target.slice(2))
    else if (path.isAbsolute(b.target)) abs = b.target
    else if (ctx.file) abs = path.resolve(path.dirname(ctx.file), b.target)
    else return skip(': it is relative and the importing file is unknown (pass its path as file)')
    const label = ctx.rootDir ? path.relative(ctx.rootDir, abs).split(path.sep).join('/') : abs
    let data
    let key
    try {
      key = options.realpath ? options.realpath(abs) : path.resolve(abs)
      if (visited.has(key)) return skip(`: ${label} is already imported (an import cycle or a repeat); each file is imported once`)
      data = options.readFile(abs)
    } catch (e) {
      return skip(`: ${label} cannot be read (${e?.code === 'ENOENT' ? 'no such file' : (e?.message ?? e)})`)
    }
    visited.add(key)
    const sub = utf8Text(ID, data, label)
    const got = parse(sub, { ...ctx, file: abs, hops: ctx.hops + 1, inherit: layer, outer: open() })
    append(entries, got.entries)
    append(
      locations,
      got.entries.map(() => null),
    )
    append(
      warnings,
      got.warnings.map((w) => (w.file ? w : { file: label, message: `${label}${w.line ? ` line ${w.line}` : ''}: ${w.message}` })),
    )
  }

  const heading = (b) => {
    const title = b.level === 1 && LAYER_TITLE.exec(cleanLabel(b.label))
    if (title) {
      trail = []
      if (!fixedLayer) layer = { track: title[1], scope: title[2] }
      return
    }
    trail = trail.slice(0, b.level - 1)
    while (trail.length < b.level - 1) trail.push(null)
    const tags = headingTags(b.label)
    if (tags.length > 1) {
      const kept = keptWhole(tags)
        ? ', and the full heading is kept in the source'
        : `; it is cut in more pieces than an entry keeps tags (${MAX_TAGS}), so the source does not keep it whole`
      warnings.push({
        line: b.line,
        message: `heading ${JSON.stringify(cleanLabel(b.label))} is longer than a tag (${MAX_TAG_LENGTH} chars): its tags are ${tags.map((t) => JSON.stringify(t)).join(', ')}${kept}`,
      })
    }
    trail.push(tags.length ? sectionPath(open(), { tags, full: cleanLabel(b.label) }) : null)
  }

  for (let i = 0; i < blocks.length; i++) {
    const b = blocks[i]
    if (b.type === 'heading') {
      heading(b)
      continue
    }
    if (b.type === 'import' || b.type === 'link') {
      follow(b)
      continue
    }
    if (!CONTENT.has(b.type)) continue
    let body = textOf(b)
    let last = b
    // A paragraph lead-in takes what follows; a bullet lead-in only code (its sibling bullets are
    // entries of their own, which is also how an exported entry ending in ":" comes back).
    for (;;) {
      if (!isLeadIn(last)) break
      const next = blocks[i + 1]
      if (last.type === 'item' && !(next?.type === 'code' || (next?.type === 'para' && FENCE.test(next.text)))) break
      // "Common commands:" right before a subsection introduces what that subsection holds
      if (next?.type === 'heading' && next.level > trail.length && !LAYER_TITLE.test(cleanLabel(next.label))) {
        heading(blocks[++i])
        continue
      }
      if (!CONTENT.has(next?.type)) break
      if (next.type === 'item') {
        while (blocks[i + 1]?.type === 'item') body += `\n${itemMarkdown(blocks[++i])}`
        break
      }
      last = blocks[++i]
      body += `\n${textOf(last)}`
    }
    body = body.trimEnd()
    if (!body) continue
    emit(body, b.line)
    // "- git workflow @docs/git.md": Claude Code imports a path mentioned in text too (the text stays)
    for (const target of mentions(body)) follow({ type: 'import', target, line: b.line, inline: true })
  }
  if (lead) emit('', fm.at[description.key])
  return { entries, warnings, locations }
}

function bulletOf(text) {
  const lines = text.replace(/\r\n/g, '\n').trim().split('\n')
  return `- ${lines[0]}${lines
    .slice(1)
    .map((l) => (l.trim() ? `\n  ${l}` : '\n'))
    .join('')}`
}

/** A heading ending in " #" gets a closing "#" so the reader does not take its own for one. */
const headingLine = (h) => (/[ \t]#+$/.test(h) ? `${h} #` : h)

/** The headings an entry's tags came from: a long heading our import split into tags (and kept whole in the source) is one again. */
function headingsOf(e) {
  const tags = e.tags ?? []
  const long =
    typeof e.source === 'string' && e.source.startsWith(`${ID}${SECTION}`)
      ? e.source
          .slice(ID.length + SECTION.length)
          .split(SECTION)
          .map((h) => [h, headingTags(h)])
      : []
  const out = []
  for (let i = 0; i < tags.length;) {
    const hit = long.find(([, parts]) => parts.length > 1 && parts.every((t, k) => tags[i + k] === t))
    out.push(hit ? hit[0] : tags[i])
    i += hit ? hit[1].length : 1
  }
  return out
}

/**
 * Export one markdown document: a "# dsh-memento memory: <track>/<scope>" title per layer, then
 * entries as bullets, in the order given, under "##".."######" headings built from their tags
 * (first tag outermost; a heading cut to a tag on import is written whole again). Multi-line
 * texts become indented continuation lines, so they come back with their newlines.
 * @returns {{plugin: string, text: string, warnings: object[]}}
 */
function exportEntries(entries) {
  const warnings = []
  const out = []
  const gap = () => {
    if (out.length && out.at(-1) !== '') out.push('')
  }
  for (const track of TRACKS) {
    for (const scope of SCOPES) {
      const layer = entries.filter((e) => e.track === track && e.scope === scope)
      if (!layer.length) continue
      const title = `# dsh-memento memory: ${track}/${scope}`
      gap()
      out.push(title, '')
      let open = []
      for (const e of layer) {
        const all = headingsOf(e)
        const heads = all.slice(0, MAX_EXPORT_TAGS)
        if (all.length > MAX_EXPORT_TAGS) {
          warnings.push({
            message: `entry ${e.id ?? ''}: only its first ${MAX_EXPORT_TAGS} tags fit the heading levels; dropped ${all.slice(MAX_EXPORT_TAGS).join(', ')}`,
          })
        }
        for (const h of heads) {
          if (atxHeading(`## ${headingLine(h)}`)?.label !== h)
            warnings.push({ message: `tag ${JSON.stringify(h)} does not survive as a heading` })
        }
        let common = 0
        while (common < open.length && common < heads.length && open[common] === heads[common]) common++
        // back up to a parent (or to no heading): only a new layer title closes the open headings
        if (common === heads.length && common < open.length) {
          gap()
          out.push(title, '')
          common = 0
        }
        for (let i = common; i < heads.length; i++) {
          gap()
          out.push(`${'#'.repeat(i + 2)} ${headingLine(heads[i])}`, '')
        }
        open = heads
        out.push(bulletOf(e.text))
      }
    }
  }
  return { plugin: ID, text: out.length ? `${trimEndOf(out.join('\n'), /\n/)}\n` : '', warnings }
}

/** @type {import('./registry.mjs').MemoryAdapter} */
export const claudeCodeAdapter = {
  id: ID,
  name: 'CLAUDE.md / AGENTS.md memory',
  description:
    'CLAUDE.md / AGENTS.md / Claude Code auto-memory markdown: bullets and paragraphs become entries, "#".."######" headings become tags (a long one split between words), ' +
    'a lead-in stays with the list or code it introduces, indented lines keep newlines, code stays code; @imports (and index links in an auto-memory memory/MEMORY.md) are reported, or followed with followImports. ' +
    'Default placement agent/workspace (~/.claude/... files: user-global; frontmatter type:user: user track; a description leads the first entry). Non-UTF-8 text is refused. ' +
    'Export writes one document with a "# dsh-memento memory: <track>/<scope>" title per layer and tags as headings, entries in the order given. ' +
    'Round trip keeps text, track, scope, up to 5 heading levels of tags (full heading names included) and entry order within a layer; it loses keys, other sources, ids, timestamps, tags past the fifth heading, and whitespace at the ends of a text.',
  version: '3.0.0',
  importFormats: ['claude-code-memory-md', 'agents-md', 'claude-auto-memory-md'],
  exportFormat: 'claude-code-memory-md',
  adapt,
  export: exportEntries,
}
