// The docs name real files and read as a description of the product: every repository path the
// README and docs/*.md mention (in backticks, in a markdown link, or in a code block's file
// listing) exists, the README stays a front door of at most 300 lines, and no line reads like a
// session note ("today", an issue or stop number).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('../', import.meta.url))

const DOCS = [
  'README.md',
  ...fs
    .readdirSync(path.join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
]

/** The top-level folders a repository path starts with (listed, so a folder that is gone still counts as one). */
const TOP = [
  '.ci',
  'bench',
  'bin',
  'client',
  'conformance',
  'docs',
  'e2e',
  'examples',
  'lib',
  'npm',
  'schemas',
  'scripts',
  'src',
  'test',
  'tests',
]
/** Folders under src/ and lib/ that the docs name without their parent (`protocol/model.rs`, `plugin/apply.mjs`). */
const UNDER = { src: fs.readdirSync(path.join(ROOT, 'src')), lib: fs.readdirSync(path.join(ROOT, 'lib')) }

/** `[line number, text, in a code block]` of every line of a file. */
function lines(file) {
  let fenced = false
  return fs
    .readFileSync(path.join(ROOT, file), 'utf8')
    .split('\n')
    .map((text, i) => {
      if (/^\s*(```|~~~)/.test(text)) return [i + 1, text, (fenced = !fenced) || true]
      return [i + 1, text, fenced]
    })
}

/**
 * The repository paths a line names, as `{path, from}`: `from` is the folder a markdown link is
 * relative to, or null for a repository path. A path's `#anchor` and `:line` are dropped.
 */
function pathsOf(file, text, fenced) {
  const found = []
  const clean = (p) =>
    p
      .replace(/#.*$/, '')
      .replace(/:\d+(?::\d+)?$/, '')
      .replace(/[.,;]$/, '')
  const repoPath = (p) => {
    p = clean(p)
    const first = p.split('/')[0]
    // An absolute path (`/memory`, `/api/…`), a `./` one or a URL names no file of the repository.
    if (!p.includes('/') || /^[./]/.test(p) || /^[a-z]+:/i.test(p)) return
    if (TOP.includes(first) || fs.existsSync(path.join(ROOT, first))) found.push({ path: p, from: null })
    else if (UNDER.src.includes(first) && fs.statSync(path.join(ROOT, 'src', first)).isDirectory())
      found.push({ path: `src/${p}`, from: null })
    else if (UNDER.lib.includes(first) && fs.statSync(path.join(ROOT, 'lib', first)).isDirectory())
      found.push({ path: `lib/${p}`, from: null })
  }
  if (fenced) {
    // A code block: shell commands and file listings. Only words that start at a top-level folder.
    for (const m of text.matchAll(
      /(?:^|[\s(,=])((?:\.ci|bench|bin|client|conformance|docs|e2e|examples|lib|npm|schemas|scripts|src|test|tests)\/[^\s,)'"`]*)/g,
    )) {
      repoPath(m[1])
    }
    return found
  }
  // A link written inside a code span is an example, not a link.
  for (const m of text.replace(/`[^`]*`/g, '').matchAll(/\]\(([^)\s]+)\)/g)) {
    const target = clean(m[1])
    if (target && !/^[a-z]+:/i.test(target)) found.push({ path: target, from: path.dirname(file) })
  }
  for (const m of text.matchAll(/`([^`\s]+)`/g)) repoPath(m[1])
  return found
}

/** Whether a path exists; a `*` or a `<placeholder>` stands for any name in its segment. */
function exists(rel) {
  const segments = rel.split('/').filter((s, i, all) => s !== '' || i === all.length - 1)
  let dirs = [ROOT]
  for (const [i, seg] of segments.entries()) {
    if (seg === '') break // a trailing slash: the path is a folder
    const last = i === segments.length - 1
    const pattern = /[*<]/.test(seg)
      ? new RegExp(
          `^${seg
            .replace(/[.+?^${}()|[\]\\]/g, '\\$&')
            .replace(/\*/g, '.*')
            .replace(/<[^>]*>/g, '.+')}$`,
        )
      : null
    const next = []
    for (const dir of dirs) {
      if (!pattern) {
        if (fs.existsSync(path.join(dir, seg))) next.push(path.join(dir, seg))
        continue
      }
      if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) continue
      for (const name of fs.readdirSync(dir)) if (pattern.test(name)) next.push(path.join(dir, name))
    }
    dirs = last ? next : next.filter((d) => fs.statSync(d).isDirectory())
    if (dirs.length === 0) return false
  }
  return true
}

/** Paths no checkout holds: written by the build, the bench or the tests. */
const GENERATED = [/^e2e\/artifacts\//, /^target\//, /^dist\//, /^npm\/[^/]+\/.*\.node$/, /^bench\/results[^/]*\.md$/]

test('every repository path the README and the docs name exists', () => {
  const missing = []
  for (const file of DOCS) {
    for (const [n, text, fenced] of lines(file)) {
      for (const { path: p, from } of pathsOf(file, text, fenced)) {
        const rel = from === null ? p : path.posix.normalize(path.posix.join(from, p))
        if (rel === '' || rel === '.' || GENERATED.some((re) => re.test(rel))) continue
        if (!exists(rel)) missing.push(`${file}:${n}: ${p}`)
      }
    }
  }
  assert.deepEqual(missing, [])
})

test('the README is a front door: at most 300 lines', () => {
  const count = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8').trimEnd().split('\n').length
  assert.ok(count <= 300, `README.md has ${count} lines`)
})

test('no line of the README or the docs reads like a session note', () => {
  const notes = [/\b(today|yesterday|this session)\b/i, /\bissue #?\d+\b/i, /\bstop \d+\b/i]
  const found = []
  for (const file of DOCS) {
    for (const [n, text] of lines(file)) {
      // Another project's issue or pull request (owner/repo#123) is a citation, not a note.
      const line = text.replace(/\b[\w.-]+\/[\w.-]+#\d+\b/g, '')
      for (const re of notes) if (re.test(line)) found.push(`${file}:${n}: ${text.trim()}`)
    }
  }
  assert.deepEqual(found, [])
})
