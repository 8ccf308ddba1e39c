// Shared helpers for the built-in adapters: payload unwrapping, line splitting, tag shaping,
// and a small JSON parser that remembers the line each value starts on (for error locations).

import { adapterPayload } from '../errors.mjs'

export const TRACKS = ['user', 'agent']
export const SCOPES = ['user-global', 'workspace']
export const MAX_TAGS = 16
export const MAX_TAG_LENGTH = 32

export const isTrack = (t) => TRACKS.includes(t)
export const isScope = (s) => SCOPES.includes(s)
export const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v)

/**
 * Markdown payloads are a string or `{text, file?, track?, scope?}`.
 * @returns {{text: string, file?: string, hints: Record<string, unknown>}}
 */
export function markdownPayload(adapterId, payload) {
  if (typeof payload === 'string') return { text: payload, hints: {} }
  if (isObject(payload) && typeof payload.text === 'string') {
    const { text, ...hints } = payload
    return { text, file: typeof payload.file === 'string' ? payload.file : undefined, hints }
  }
  throw adapterPayload(adapterId, 'payload must be markdown text or {text: "..."}')
}

/** Split text into lines (BOM stripped, CRLF tolerated). */
export function splitLines(text) {
  return text.replace(/^\uFEFF/, '').split(/\r?\n/)
}

/** Resolve track/scope from options, then payload hints, then defaults; invalid values are loud. */
export function placement(adapterId, options, hints, defaults) {
  const track = options?.track ?? hints?.track ?? defaults.track
  const scope = options?.scope ?? hints?.scope ?? defaults.scope
  if (!isTrack(track)) throw adapterPayload(adapterId, `invalid track ${JSON.stringify(track)} (user|agent)`)
  if (!isScope(scope)) throw adapterPayload(adapterId, `invalid scope ${JSON.stringify(scope)} (user-global|workspace)`)
  return { track, scope }
}

/**
 * Turn a heading (or other label) into a protocol tag. Control characters become spaces; a label
 * longer than 32 UTF-16 units is shortened (never split inside a surrogate pair) and reported.
 * @returns {string | null} null when nothing is left
 */
export function labelToTag(label, warnings, line) {
  let tag = label.replace(/[\u0000-\u001F\u007F]+/g, ' ').replace(/\s+/g, ' ').trim()
  if (!tag) return null
  if (tag.length > MAX_TAG_LENGTH) {
    let cut = ''
    for (const ch of tag) {
      if (cut.length + ch.length > MAX_TAG_LENGTH) break
      cut += ch
    }
    warnings.push({ line, message: `heading ${JSON.stringify(tag)} is longer than ${MAX_TAG_LENGTH} chars; its tag was shortened to ${JSON.stringify(cut.trim())} (the entry text is complete)` })
    tag = cut.trim()
  }
  return tag
}

/** Dedupe tags keeping the first; more than 16 is reported and the excess is dropped from tags only. */
export function finishTags(tags, warnings, line) {
  const out = []
  for (const t of tags) if (t && !out.includes(t)) out.push(t)
  if (out.length > MAX_TAGS) {
    warnings.push({ line, message: `${out.length} tags; only the first ${MAX_TAGS} were kept (dropped: ${out.slice(MAX_TAGS).join(', ')})` })
    return out.slice(0, MAX_TAGS)
  }
  return out
}

/** Code-point length (what mm and Hermes count). */
export const codePoints = (s) => Array.from(s).length
/** UTF-8 byte length. */
export const utf8Bytes = (s) => Buffer.byteLength(s, 'utf8')

/**
 * Parse JSON like `JSON.parse`, and also return the 1-based line each value starts on, keyed by
 * JSON pointer (`''` for the root, `/facts/3` for an array item). Syntax errors name the line.
 * @param {string} text
 * @returns {{value: unknown, lineOf: (pointer: string) => number | undefined}}
 */
export function parseJsonWithLines(text) {
  const src = text.replace(/^\uFEFF/, '')
  const lines = new Map()
  let i = 0
  let line = 1
  const fail = (msg) => {
    const e = new SyntaxError(`${msg} (line ${line})`)
    e.line = line
    throw e
  }
  const ws = () => {
    for (;;) {
      const c = src[i]
      if (c === '\n') { line++; i++ } else if (c === ' ' || c === '\t' || c === '\r') i++
      else return
    }
  }
  const str = () => {
    const start = i
    i++
    for (;;) {
      const c = src[i]
      if (c === undefined) fail('unterminated string')
      if (c === '\n') fail('raw newline in string')
      if (c === '\\') { i += 2; continue }
      i++
      if (c === '"') break
    }
    try { return JSON.parse(src.slice(start, i)) } catch { return fail('invalid string escape') }
  }
  const value = (ptr) => {
    ws()
    lines.set(ptr, line)
    const c = src[i]
    if (c === '{') {
      i++
      const obj = {}
      ws()
      if (src[i] === '}') { i++; return obj }
      for (;;) {
        ws()
        if (src[i] !== '"') fail('expected a property name')
        const key = str()
        ws()
        if (src[i] !== ':') fail("expected ':' after a property name")
        i++
        obj[key] = value(`${ptr}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`)
        ws()
        if (src[i] === ',') { i++; continue }
        if (src[i] === '}') { i++; return obj }
        fail("expected ',' or '}'")
      }
    }
    if (c === '[') {
      i++
      const arr = []
      ws()
      if (src[i] === ']') { i++; return arr }
      for (;;) {
        arr.push(value(`${ptr}/${arr.length}`))
        ws()
        if (src[i] === ',') { i++; continue }
        if (src[i] === ']') { i++; return arr }
        fail("expected ',' or ']'")
      }
    }
    if (c === '"') return str()
    const m = /^(?:-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)/.exec(src.slice(i, i + 400))
    if (!m) fail(c === undefined ? 'unexpected end of JSON' : `unexpected character ${JSON.stringify(c)}`)
    i += m[0].length
    return JSON.parse(m[0])
  }
  const v = value('')
  ws()
  if (i < src.length) fail('unexpected content after the JSON value')
  return { value: v, lineOf: (p) => lines.get(p) }
}
