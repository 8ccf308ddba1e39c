// Shared helpers for the built-in adapters: payload unwrapping, line splitting, tag shaping,
// and a small JSON parser that remembers the line each value starts on (for error locations).

import { adapterPayload } from '../errors.mjs'
import { RULES, SCOPES, TRACKS } from '../native.mjs'

/** The tags an entry keeps, and a tag's length: the core's rules. */
export const MAX_TAGS = RULES.maxTagsPerEntry
export const MAX_TAG_LENGTH = RULES.maxTagLength

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

/**
 * A line break that a line from splitLines may still hold (\r alone, U+2028, U+2029) and that a
 * regex "." does not cross. A regex like /\s*(.*)$/ fails on such a line only after rescanning the
 * rest for each space it gives back (quadratic), so the adapters test for one first.
 */
/** `target.push(...items)` for any number of items (a spread of 300,000 overflows the stack). */
export function append(target, items) {
  for (const item of items) target.push(item)
  return target
}

export const LINE_BREAK = /[\r\u2028\u2029]/

/** Split text into lines (BOM stripped, CRLF tolerated). */
export function splitLines(text) {
  return text.replace(/^\uFEFF/, '').split(/\r?\n/)
}

/**
 * `s` without the characters at its end that `char` (a one-character regex) matches. A loop, since
 * a regex anchored at the end (/\s+$/) retries at every character of a long run inside `s`:
 * quadratic in the run.
 */
export function trimEndOf(s, char) {
  let end = s.length
  while (end > 0 && char.test(s[end - 1])) end--
  return s.slice(0, end)
}

/** Resolve track/scope from options, then payload hints, then defaults; invalid values are loud. */
export function placement(adapterId, options, hints, defaults) {
  const track = options?.track ?? hints?.track ?? defaults.track
  const scope = options?.scope ?? hints?.scope ?? defaults.scope
  if (!isTrack(track)) throw adapterPayload(adapterId, `invalid track ${JSON.stringify(track)} (user|agent)`)
  if (!isScope(scope)) throw adapterPayload(adapterId, `invalid scope ${JSON.stringify(scope)} (user-global|workspace)`)
  return { track, scope }
}

/** A label with control characters as spaces and whitespace runs collapsed (what a tag is made of). */
export const cleanLabel = (label) =>
  label
    .replace(/[\u0000-\u001F\u007F]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()

/**
 * Markdown text as UTF-8, or refused with the line it went wrong on: a file in another encoding
 * (Windows-1252, Latin-1) would otherwise land as mojibake.
 * Bytes are decoded strictly: undecodable bytes are refused, and a U+FFFD the file really holds is
 * text. A string has been decoded already, maybe lossily (`readFileSync(f, 'utf8')` turns each bad
 * byte into U+FFFD), so a U+FFFD in it cannot be told from a lost byte: it is refused, and the
 * error says to pass the bytes instead.
 * @param {string} adapterId
 * @param {string | Uint8Array} data
 * @param {string} [file] named in the error
 * @returns {string}
 */
export function utf8Text(adapterId, data, file) {
  if (typeof data !== 'string') return decodeUtf8(adapterId, data, file)
  const at = data.indexOf('\uFFFD')
  if (at < 0) return data
  const line = data.slice(0, at).split('\n').length
  throw adapterPayload(
    adapterId,
    "the text holds U+FFFD, which a non-UTF-8 file (e.g. Windows-1252) becomes when read as UTF-8, and a decoded string cannot show whether the file holds it; pass the file's bytes (a Uint8Array: a U+FFFD really in the file is kept), or convert the file to UTF-8 (iconv -f WINDOWS-1252 -t UTF-8)",
    { file, line },
  )
}

function decodeUtf8(adapterId, bytes, file) {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    const at = firstBadUtf8(bytes)
    let line = 1
    for (let i = 0; i < at; i++) if (bytes[i] === 0x0a) line++
    const hex = bytes[at].toString(16).toUpperCase().padStart(2, '0')
    throw adapterPayload(adapterId, `the file is not UTF-8 (byte 0x${hex}); convert it first, e.g. iconv -f WINDOWS-1252 -t UTF-8`, {
      file,
      line,
    })
  }
}

/** Offset of the first byte that does not belong to a well-formed UTF-8 sequence. */
function firstBadUtf8(b) {
  for (let i = 0; i < b.length;) {
    const c = b[i]
    const n = c < 0x80 ? 0 : c >= 0xc2 && c <= 0xdf ? 1 : c >= 0xe0 && c <= 0xef ? 2 : c >= 0xf0 && c <= 0xf4 ? 3 : -1
    if (n < 0) return i
    for (let k = 1; k <= n; k++) if (i + k >= b.length || (b[i + k] & 0xc0) !== 0x80) return i
    const d = b[i + 1]
    if ((c === 0xe0 && d < 0xa0) || (c === 0xed && d > 0x9f) || (c === 0xf0 && d < 0x90) || (c === 0xf4 && d > 0x8f)) return i
    i += n + 1
  }
  return b.length - 1
}

/**
 * Turn a heading (or other label) into a protocol tag. Control characters become spaces; a label
 * longer than 32 UTF-16 units is shortened (never split inside a surrogate pair) and reported.
 * @returns {string | null} null when nothing is left
 */
export function labelToTag(label, warnings, line) {
  let tag = cleanLabel(label)
  if (!tag) return null
  if (tag.length > MAX_TAG_LENGTH) {
    let cut = ''
    for (const ch of tag) {
      if (cut.length + ch.length > MAX_TAG_LENGTH) break
      cut += ch
    }
    warnings.push({
      line,
      message: `heading ${JSON.stringify(tag)} is longer than ${MAX_TAG_LENGTH} chars; its tag was shortened to ${JSON.stringify(cut.trim())} (the entry text is complete)`,
    })
    tag = cut.trim()
  }
  return tag
}

/** The warning for `count` distinct tags: `dropped` names the first ones past the 16th (at most 16 are named). */
export const tooManyTags = (count, dropped) => {
  const more = count - MAX_TAGS - dropped.length
  return `${count} tags; only the first ${MAX_TAGS} were kept (dropped: ${dropped.join(', ')}${more > 0 ? ` and ${more} more` : ''})`
}

/** Dedupe tags keeping the first; more than 16 is reported and the excess is dropped from tags only. */
export function finishTags(tags, warnings, line) {
  const out = [...new Set(tags.filter(Boolean))]
  if (out.length > MAX_TAGS) {
    warnings.push({ line, message: tooManyTags(out.length, out.slice(MAX_TAGS, 2 * MAX_TAGS)) })
    return out.slice(0, MAX_TAGS)
  }
  return out
}

/** Code-point length (what mm and Hermes count). */
export const codePoints = (s) => Array.from(s).length
/** UTF-8 byte length. */
export const utf8Bytes = (s) => Buffer.byteLength(s, 'utf8')

/**
 * Parse JSON like `JSON.parse`, and also return the 1-based line each value starts on: `lineOf`
 * by JSON pointer (`''` for the root, `/facts/3` for an array item), `lineIn` by the array or
 * object holding it and its key or index. Syntax errors name the line.
 * Lines are kept per container, not per pointer: a pointer string per value would cost its depth
 * (and a long key's length) for every value under it.
 * @param {string} text
 * @returns {{value: unknown, lineOf: (pointer: string) => number | undefined, lineIn: (container: object, key: string | number) => number | undefined}}
 */
export function parseJsonWithLines(text) {
  const src = text.replace(/^\uFEFF/, '')
  const lines = new WeakMap() // array or object -> Map(key -> line of its value)
  let rootLine
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
      if (c === '\n') {
        line++
        i++
      } else if (c === ' ' || c === '\t' || c === '\r') i++
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
      if (c === '\\') {
        i += 2
        continue
      }
      i++
      if (c === '"') break
    }
    try {
      return JSON.parse(src.slice(start, i))
    } catch {
      return fail('invalid string escape')
    }
  }
  const value = (container, name) => {
    ws()
    if (container) lines.get(container).set(name, line)
    else rootLine = line
    const c = src[i]
    if (c === '{') {
      i++
      const obj = {}
      lines.set(obj, new Map())
      ws()
      if (src[i] === '}') {
        i++
        return obj
      }
      for (;;) {
        ws()
        if (src[i] !== '"') fail('expected a property name')
        const key = str()
        ws()
        if (src[i] !== ':') fail("expected ':' after a property name")
        i++
        obj[key] = value(obj, key)
        ws()
        if (src[i] === ',') {
          i++
          continue
        }
        if (src[i] === '}') {
          i++
          return obj
        }
        fail("expected ',' or '}'")
      }
    }
    if (c === '[') {
      i++
      const arr = []
      lines.set(arr, new Map())
      ws()
      if (src[i] === ']') {
        i++
        return arr
      }
      for (;;) {
        arr.push(value(arr, String(arr.length)))
        ws()
        if (src[i] === ',') {
          i++
          continue
        }
        if (src[i] === ']') {
          i++
          return arr
        }
        fail("expected ',' or ']'")
      }
    }
    if (c === '"') return str()
    const m = /^(?:-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)/.exec(src.slice(i, i + 400))
    if (!m) fail(c === undefined ? 'unexpected end of JSON' : `unexpected character ${JSON.stringify(c)}`)
    i += m[0].length
    return JSON.parse(m[0])
  }
  const v = value(null)
  ws()
  if (i < src.length) fail('unexpected content after the JSON value')
  const lineIn = (container, key) => lines.get(container)?.get(String(key))
  const lineOf = (pointer) => {
    if (pointer === '') return rootLine
    let node = v
    let at
    for (const seg of pointer.split('/').slice(1)) {
      const key = seg.replace(/~1/g, '/').replace(/~0/g, '~')
      at = node !== null && typeof node === 'object' ? lineIn(node, key) : undefined
      if (at === undefined) return undefined
      node = node[key]
    }
    return at
  }
  return { value: v, lineOf, lineIn }
}
