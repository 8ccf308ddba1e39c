// LLM-free digest: find explicit memory markers in text files or dsh session logs and turn them
// into PROPOSAL inputs (never direct writes), deduplicated against existing entries and proposals.
//
// Markers (one per line, the rest of the line is the candidate):
//   MEMO: ...   REMEMBER: ... / remember: ...   记住：... / 记住: ...   记忆：...
//   mm markers: "mm:<topic> ..." or "mm://<id>/<topic> ..." (text becomes "<topic>: ...")
// A marker must start the line or follow a non-letter/digit ("Please remember: x" counts,
// "misremember: x" does not).
//
// Session logs: dsh writes $DSH_HOME/sessions/<cwd-slug>/<session-id>/session.jsonl.zstd. Node
// >= 22.15 decodes zstd natively (zlib.zstdDecompressSync); on older Node (20 has no zstd) the
// `zstd` command is used when it is installed; otherwise a clear error asks for either. Plain
// `.jsonl` logs are always read. By default only user-authored events (and compaction summaries)
// are scanned, because markers inside tool output or fetched documents are a memory-poisoning
// vector ("a document that says remember this"); `events: 'all'` widens that on purpose.
//
// Dedup: a candidate is skipped when the provider's similarity scorer finds it a likely duplicate
// of an entry of its layer (`provider.similar`, through the caller's `inMemory`), or when, after
// NFKC + lowercase + whitespace folding, it equals a pending or dismissed proposal or repeats an
// earlier candidate.
// Each proposal gets kind "digest" and sessionId "digest:<sha256-16 of the folded text>", so the
// store's one-proposal-per-(session, kind) rule makes re-running a digest idempotent (and a
// dismissed candidate is not proposed again).

import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import zlib from 'node:zlib'
import { invalidInput } from './errors.mjs'
import { eventText } from './events.mjs'

const MARKER = /(?:^|[^\p{L}\p{N}])(?:MEMO|REMEMBER|记住|记忆)\s*[：:]\s*(.*)$/iu
const MM = /(?:^|[^\p{L}\p{N}:/])mm:(?:\/\/([A-Za-z0-9][A-Za-z0-9._-]*)\/)?([A-Za-z0-9][A-Za-z0-9._-]{0,63})(?=[\s,:：-]|$)[\s,:：-]*(.*)$/u

/** NFKC, lowercase, whitespace folded: the comparison form used for dedup. */
export const foldText = (s) => s.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim()
const hash16 = (s) => createHash('sha256').update(foldText(s)).digest('hex').slice(0, 16)
const clean = (s) =>
  s
    .replace(/\s+$/, '')
    .replace(/^["'`*_]+|["'`*_]+$/g, '')
    .trim()

/**
 * Scan text for markers. Pure.
 * @param {string} text
 * @param {{file?: string, sessionId?: string|null, lineOffset?: number}} [where]
 * @returns {{text: string, kind: 'memo'|'mm', line: number, file?: string, sessionId?: string|null}[]}
 */
export function scanText(text, where = {}) {
  const out = []
  text.split(/\r?\n/).forEach((line, i) => {
    const m = MARKER.exec(line)
    if (m) {
      const t = clean(m[1])
      if (t)
        out.push({ text: t, kind: 'memo', line: (where.lineOffset ?? 0) + i + 1, file: where.file, sessionId: where.sessionId ?? null })
      return
    }
    const u = MM.exec(line)
    if (u) {
      const rest = clean(u[3])
      if (rest)
        out.push({
          text: `${u[2]}: ${rest}`,
          kind: 'mm',
          line: (where.lineOffset ?? 0) + i + 1,
          file: where.file,
          sessionId: where.sessionId ?? null,
        })
    }
  })
  return out
}

/** True for events a human typed (or compaction summaries); tool output and model text are excluded. */
export function isUserAuthored(event) {
  const type = String(event?.type ?? '')
  const role = event?.data?.role ?? event?.data?.message?.role
  if (role === 'user') return true
  if (role) return false
  return /(^|\/)user(\/|$)|^user[-_]|^message\/user|^compaction\/summary$/.test(type)
}

/**
 * Scan a session log (JSONL text). Pure.
 * @param {string} jsonl
 * @param {{file?: string, events?: 'user'|'all'}} [opts]
 * @returns {{sessionId: string|null, cwd: string|null, candidates: object[], badLines: number[]}}
 */
export function scanSessionLog(jsonl, opts = {}) {
  let sessionId = null
  let cwd = null
  const candidates = []
  const badLines = []
  jsonl.split(/\r?\n/).forEach((line, i) => {
    if (!line.trim()) return
    let ev
    try {
      ev = JSON.parse(line)
    } catch {
      badLines.push(i + 1)
      return
    }
    if (ev?.type === 'session') {
      sessionId = typeof ev.id === 'string' ? ev.id : sessionId
      cwd = typeof ev.cwd === 'string' ? ev.cwd : typeof ev.header?.cwd === 'string' ? ev.header.cwd : cwd
      return
    }
    if (opts.events !== 'all' && !isUserAuthored(ev)) return
    for (const c of scanText(eventText(ev), { file: opts.file, sessionId })) candidates.push({ ...c, line: i + 1 })
  })
  return { sessionId, cwd, candidates: candidates.map((c) => ({ ...c, sessionId })), badLines }
}

/** Decode a `.zstd` buffer: native zlib when available (Node >= 22.15), else the `zstd` command. */
export function decodeZstd(buf, file = 'session log') {
  if (typeof zlib.zstdDecompressSync === 'function') return zlib.zstdDecompressSync(buf).toString('utf8')
  try {
    return execFileSync('zstd', ['-dc'], { input: buf, maxBuffer: 256 * 1024 * 1024 }).toString('utf8')
  } catch (e) {
    if (e.code === 'ENOENT')
      throw invalidInput(
        `digest: cannot decode ${file}: this Node (${process.version}) has no zstd and the zstd command is not installed; use Node >= 22.15, install zstd, or pass a decompressed .jsonl`,
      )
    throw invalidInput(`digest: cannot decode ${file}: ${e.message}`)
  }
}

/**
 * Read one source file: `.jsonl.zstd`/`.zst` and `.jsonl` are session logs (a first line of
 * `{"type": ...}` also marks a log), anything else is text.
 * @returns {{kind: 'session-log'|'text', sessionId: string|null, cwd: string|null, candidates: object[]}}
 */
export function scanFile(file, opts = {}) {
  let buf
  try {
    buf = fs.readFileSync(file)
  } catch (e) {
    throw invalidInput(`digest: cannot read ${JSON.stringify(file)}: ${e.message}`)
  }
  const text = /\.(zstd|zst)$/.test(file) ? decodeZstd(buf, file) : buf.toString('utf8')
  const first = text.split(/\r?\n/).find((l) => l.trim()) ?? ''
  let isLog = /\.jsonl(\.(zstd|zst))?$/.test(file)
  if (!isLog) {
    try {
      const v = JSON.parse(first)
      isLog = v && typeof v === 'object' && typeof v.type === 'string'
    } catch {
      /* text */
    }
  }
  if (isLog) return { kind: 'session-log', ...scanSessionLog(text, { ...opts, file }) }
  return { kind: 'text', sessionId: null, cwd: null, candidates: scanText(text, { file }) }
}

/**
 * Find dsh session logs under `<dshHome>/sessions` (newest first, at most `max`).
 * @returns {string[]}
 */
export function findSessionLogs(dshHome, max = 50) {
  const root = path.join(dshHome, 'sessions')
  const found = []
  const walk = (dir, depth) => {
    let list
    try {
      list = fs.readdirSync(dir, { withFileTypes: true })
    } catch {
      return
    }
    for (const d of list) {
      const p = path.join(dir, d.name)
      if (d.isDirectory() && depth < 4) walk(p, depth + 1)
      else if (d.isFile() && /^session\.jsonl(\.zstd|\.zst)?$/.test(d.name)) found.push({ p, t: fs.statSync(p).mtimeMs })
    }
  }
  walk(root, 0)
  return found
    .sort((a, b) => b.t - a.t || (a.p < b.p ? -1 : 1))
    .slice(0, max)
    .map((f) => f.p)
}

/**
 * Dedup candidates and shape them as proposal inputs (`inMemory`: whether a stored entry already
 * says an input's text; see `alreadyStored`).
 * @param {object[]} candidates from scanText / scanSessionLog / scanFile
 * @param {{inMemory?: (input: object) => boolean, proposals?: {text: string, status?: string}[] (pending and dismissed ones), track?: string, scope?: string, workspaceKeyOf?: (cwd: string) => string, workspaceKey?: string, agentKey?: string, cwdOf?: (c: object) => string|null}} [ctx]
 * @returns {{proposals: object[], skipped: {text: string, reason: string}[]}}
 */
export function toProposals(candidates, ctx = {}) {
  const track = ctx.track ?? 'agent'
  const scope = ctx.scope ?? 'workspace'
  const pending = new Set((ctx.proposals ?? []).filter((p) => (p.status ?? 'pending') === 'pending').map((p) => foldText(p.text)))
  const dismissed = new Set((ctx.proposals ?? []).filter((p) => p.status === 'dismissed').map((p) => foldText(p.text)))
  const seen = new Set()
  const proposals = []
  const skipped = []
  for (const c of candidates) {
    const f = foldText(c.text)
    if (seen.has(f)) {
      skipped.push({ text: c.text, reason: 'repeated in this digest' })
      continue
    }
    seen.add(f)
    if (pending.has(f)) {
      skipped.push({ text: c.text, reason: 'already a pending proposal' })
      continue
    }
    if (dismissed.has(f)) {
      skipped.push({ text: c.text, reason: 'dismissed before' })
      continue
    }
    const input = { kind: 'digest', track, scope, text: c.text, source: 'digest', sessionId: `digest:${hash16(c.text)}` }
    const cwd = ctx.cwdOf?.(c) ?? null
    if (scope === 'workspace') {
      if (ctx.workspaceKey !== undefined) input.workspaceKey = ctx.workspaceKey
      else if (cwd && ctx.workspaceKeyOf) input.workspaceKey = ctx.workspaceKeyOf(cwd)
    } else input.workspaceKey = ''
    if (ctx.agentKey !== undefined) input.agentKey = ctx.agentKey
    if (ctx.inMemory?.(input)) {
      skipped.push({ text: c.text, reason: 'already in memory' })
      continue
    }
    proposals.push(input)
  }
  return { proposals, skipped }
}

/** `inMemory` for `toProposals`: the provider's scorer finds a likely duplicate in the input's layer. */
export const alreadyStored = (provider) => (input) => provider.similar(input).some((s) => s.relation === 'duplicate')

/**
 * Record proposals in a provider (`proposalAdd`; a `null` result = already proposed earlier).
 * @returns {{added: object[], already: object[]}}
 */
export function recordProposals(provider, inputs) {
  const added = []
  const already = []
  for (const x of inputs) {
    const p = provider.proposalAdd(x)
    if (p) added.push(p)
    else already.push(x)
  }
  return { added, already }
}
