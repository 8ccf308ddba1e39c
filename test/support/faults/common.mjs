// Shared by the reliability tests (crash, concurrency, fuzz, store faults, no bypass) and their
// child-process writers: a seeded PRNG, write contexts, text markers that encode a budget
// layer, and the store invariants every test checks after a fault.
//
// Texts are built from plain words (never random characters) so that secret screening of the
// store cannot mistake them for keys or tokens. Every entry text carries one marker
// `[<tag>@<ws>]` — `<ws>` is `g` for user-global entries, else the workspace index — so a
// marker is a unique match and the budget layer of any audit row can be read from its text.
import fs from 'node:fs'
import { createRequire } from 'node:module'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { workspaceKeyOf } from '../keys.mjs'

export const ROOT = fileURLToPath(new URL('../../../', import.meta.url))
export const INDEX = `${ROOT}index.mjs`
/**
 * Whether the addon loads on this platform (from `memento.<platform>.node` or its platform
 * package). A binding that does not load fails the run with the loader's error; only an explicit
 * `MEMENTO_SKIP_NATIVE=1` turns that into skipping the tests that need it (a file whose modules
 * load the addon as they are imported still fails).
 */
export const NATIVE_BUILT = (() => {
  try {
    createRequire(import.meta.url)(`${ROOT}native.cjs`)
    return true
  } catch (e) {
    if (process.env.MEMENTO_SKIP_NATIVE !== '1') throw e
    return false
  }
})()
/** The `skip` of a test that needs the addon: false, unless MEMENTO_SKIP_NATIVE=1 and it is not loaded. */
export const NATIVE_SKIP = NATIVE_BUILT ? false : 'MEMENTO_SKIP_NATIVE=1: the native addon is not loaded'

/** mulberry32: small, fast, deterministic. */
export function rng(seed) {
  let a = seed >>> 0
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const r = {
    next,
    int: (n) => Math.floor(next() * n),
    range: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)),
    pick: (xs) => xs[Math.floor(next() * xs.length)],
    chance: (p) => next() < p,
    shuffle: (xs) => {
      const out = [...xs]
      for (let i = out.length - 1; i > 0; i--) {
        const j = Math.floor(next() * (i + 1))
        ;[out[i], out[j]] = [out[j], out[i]]
      }
      return out
    },
  }
  return r
}

/** The seed of a test run: `$MEMENTO_TEST_SEED` (to reproduce a failure) or a fresh one. */
export function testSeed() {
  const env = process.env.MEMENTO_TEST_SEED
  return env && /^\d+$/.test(env) ? Number(env) : Math.floor(Math.random() * 2 ** 31)
}

/** Workspace keys (of the cwds `/srv/fault/ws<i>`: on win32 `<drive>:\srv\fault\ws<i>`, lowercased). */
export const WORKSPACES = ['/srv/fault/ws0', '/srv/fault/ws1'].map(workspaceKeyOf)
export const PRESETS = ['', 'coder']
export const LIMITS = { user: { userGlobal: 600, workspace: 700 }, agent: { userGlobal: 800, workspace: 900 } }

const WORDS = [
  'prefers',
  'pnpm',
  'tabs',
  'vitest',
  'rust',
  'tea',
  'dark',
  'mode',
  'café',
  'naïve',
  '漢字',
  'メモ',
  '😀',
  'résumé',
  'build',
  'deploy',
  'lint',
  'review',
  'short',
  'answers',
  'Ünïcode',
  'notes',
]

/** A text of plain words around one marker (UTF-16 length varies with the emoji/CJK words). */
export function textWith(r, marker, words = r.range(1, 12)) {
  const out = []
  for (let i = 0; i < words; i++) out.push(r.pick(WORDS))
  out.splice(r.int(out.length + 1), 0, marker)
  return out.join(' ')
}

export const markerOf = (text) => /\[[^\]@[]+@(?:g|\d+)\]/.exec(text)?.[0] ?? null
export const layerTagOf = (text) => /\[[^\]@[]+@(g|\d+)\]/.exec(text)?.[1] ?? null

/** A write context whose visible set contains an entry of this workspace/agent. */
export function writeFor(sessionId, { workspaceKey = '', agentKey = '' } = {}, extra = {}) {
  const header = { cwd: workspaceKey || WORKSPACES[0] }
  if (agentKey) header.agentPreset = agentKey
  return { agent: { session: { id: sessionId, header } }, ...extra }
}

export function tmpDir(prefix = 'memento-fault-') {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix))
}

export const isUtf16Clean = (s) =>
  typeof s === 'string' && !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s)

/** Every audit row, oldest first. */
export function fullAudit(p) {
  return p.auditList(Number.MAX_SAFE_INTEGER).slice().reverse()
}

const ENTRY_ADD = new Set(['add', 'consolidate-add'])
const ENTRY_DEL = new Set(['remove', 'consolidate-remove'])

/**
 * Check a store's invariants; returns a list of violations (empty = consistent).
 *  - entry ids unique; audit seqs strictly increasing;
 *  - replaying the entry-changing audit rows (add, replace, remove, consolidate-*, the `add`
 *    rows of seed and proposal approval) yields exactly listEntries() (ids, texts, layers);
 *  - `*-denied` / `*-aborted` rows carry no entry id;
 *  - maintained usage (budgets({workspaceKey}) per workspace, budgets() = fullest) equals a
 *    recount over listEntries() in UTF-16 units, and never exceeds the limit;
 *  - the audit hash chain verifies (auditVerify), over every row;
 *  - with `replayLayers` (texts carry layer markers): usage replayed in audit order never
 *    exceeds the limit at any commit.
 */
export function violations(p, { limits, replayLayers = false } = {}) {
  const out = []
  const entries = p.listEntries()
  const audit = fullAudit(p)
  const ids = new Set()
  for (const e of entries) {
    if (ids.has(e.id)) out.push(`duplicate entry id ${e.id}`)
    ids.add(e.id)
    if (e.scope === 'user-global' && e.workspaceKey !== '') out.push(`user-global entry ${e.id} has workspaceKey ${e.workspaceKey}`)
  }
  let lastSeq = 0
  const state = new Map()
  const usage = new Map()
  const layerKeyOfRow = (row) => {
    const tag = layerTagOf(row.text ?? '')
    return `${row.track}/${row.scope}/${tag === 'g' || tag === null ? '' : WORKSPACES[Number(tag)]}`
  }
  let seqOfCommit = null
  const checkReplay = () => {
    if (!replayLayers || !limits) return
    for (const [key, used] of usage) {
      const [track, scope] = key.split('/')
      const limit = limits[track][scope === 'user-global' ? 'userGlobal' : 'workspace']
      if (used > limit) out.push(`replayed usage of ${key} is ${used} > ${limit} after audit seq ${seqOfCommit}`)
    }
  }
  for (const row of audit) {
    if (!(row.seq > lastSeq)) out.push(`audit seq ${row.seq} after ${lastSeq}`)
    lastSeq = row.seq
    if (/-(denied|aborted)$/.test(row.action) && row.entryId !== null) out.push(`${row.action} row ${row.seq} names entry ${row.entryId}`)
    // A commit boundary: rows of one transaction share a timestamp and outcome, but the
    // replay only needs "after each row", which is stricter than "after each commit" except
    // inside consolidate (removes come first) and seed (adds only) — both fine.
    if (ENTRY_ADD.has(row.action)) {
      if (row.entryId === null) out.push(`${row.action} row ${row.seq} has no entry id`)
      else if (state.has(row.entryId)) out.push(`${row.action} row ${row.seq} re-adds live entry ${row.entryId}`)
      else state.set(row.entryId, { text: row.text, track: row.track, scope: row.scope })
      const k = layerKeyOfRow(row)
      usage.set(k, (usage.get(k) ?? 0) + (row.text ?? '').length)
    } else if (row.action === 'replace') {
      const prev = state.get(row.entryId)
      if (!prev) out.push(`replace row ${row.seq} of unknown entry ${row.entryId}`)
      else {
        const k = layerKeyOfRow(row)
        usage.set(k, (usage.get(k) ?? 0) - prev.text.length + (row.text ?? '').length)
        prev.text = row.text
      }
    } else if (ENTRY_DEL.has(row.action)) {
      const prev = state.get(row.entryId)
      if (!prev) out.push(`${row.action} row ${row.seq} of unknown entry ${row.entryId}`)
      else {
        if (prev.text !== row.text) out.push(`${row.action} row ${row.seq} text differs from the entry's last text`)
        const k = layerKeyOfRow(row)
        usage.set(k, (usage.get(k) ?? 0) - prev.text.length)
        state.delete(row.entryId)
      }
    }
    seqOfCommit = row.seq
    if (ENTRY_ADD.has(row.action) || row.action === 'replace') checkReplay()
  }
  for (const e of entries) {
    const s = state.get(e.id)
    if (!s) out.push(`entry ${e.id} (${JSON.stringify(e.text.slice(0, 40))}) has no add row`)
    else {
      if (s.text !== e.text) out.push(`entry ${e.id} text differs from its last audit row`)
      if (s.track !== e.track || s.scope !== e.scope) out.push(`entry ${e.id} layer differs from its audit rows`)
    }
  }
  for (const id of state.keys()) if (!ids.has(id)) out.push(`audit says entry ${id} exists, but it is not in the store`)

  // Maintained usage = recount.
  const recount = new Map()
  const workspaces = new Set([''])
  for (const e of entries) {
    const ws = e.scope === 'workspace' ? e.workspaceKey : ''
    if (e.scope === 'workspace') workspaces.add(e.workspaceKey)
    const k = `${e.track}/${e.scope}/${ws}`
    recount.set(k, (recount.get(k) ?? 0) + e.text.length)
  }
  for (const ws of [...workspaces, ...WORKSPACES]) {
    for (const row of p.budgets({ workspaceKey: ws })) {
      const k = `${row.track}/${row.scope}/${row.scope === 'workspace' ? ws : ''}`
      const want = recount.get(k) ?? 0
      if (row.used !== want) out.push(`maintained usage ${k} = ${row.used}, recount = ${want}`)
      if (row.used > row.limit) out.push(`usage ${k} = ${row.used} exceeds limit ${row.limit}`)
      if (limits) {
        const limit = limits[row.track][row.scope === 'user-global' ? 'userGlobal' : 'workspace']
        if (row.limit !== limit) out.push(`limit of ${k} is ${row.limit}, configured ${limit}`)
      }
    }
  }
  // The audit hash chain (when this build has one) verifies end to end.
  if (typeof p.auditVerify === 'function') {
    const v = p.auditVerify()
    if (!v.ok) out.push(`audit chain broken at seq ${v.firstBroken?.seq}: ${v.firstBroken?.reason}`)
    else if (v.checked !== audit.length) out.push(`auditVerify checked ${v.checked} rows of ${audit.length}`)
  }
  for (const row of p.budgets()) {
    let want = 0
    for (const [k, v] of recount) if (k.startsWith(`${row.track}/${row.scope}/`)) want = Math.max(want, v)
    if (row.used !== want) out.push(`budgets() ${row.track}/${row.scope} = ${row.used}, fullest recount = ${want}`)
  }
  return out
}

/** The SQLite CLI, if this machine has one (used only for PRAGMA integrity_check). */
export function sqliteCli() {
  const name = process.platform === 'win32' ? 'sqlite3.exe' : 'sqlite3'
  for (const dir of (process.env.PATH ?? '').split(path.delimiter).filter(Boolean)) {
    const f = path.join(dir, name)
    try {
      fs.accessSync(f, fs.constants.X_OK)
      return f
    } catch {}
  }
  return null
}
