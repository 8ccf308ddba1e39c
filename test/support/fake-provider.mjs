// A JSON-file-backed stand-in for the native MemoryProvider, used ONLY by tests when the native
// module (memento.linux-x64-gnu.node) has not been built. It follows index.d.ts closely enough
// for adapter/envelope/CLI tests: gate + auditLabel, budgets, denied rows, seed all-or-nothing.
import { randomUUID } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { memoryError } from '../../lib/errors.mjs'

export const DEFAULT_BUDGETS = { user: { userGlobal: 2000, workspace: 2000 }, agent: { userGlobal: 4000, workspace: 4000 } }
export const isMemoryError = (e) => e instanceof Error && typeof e.code === 'string' && typeof e.details === 'object'

export function resolveDbPath(dbPath = '', env = process.env) {
  const home = env.DSH_HOME || path.join(os.homedir(), '.dsh')
  if (!dbPath) return path.join(home, 'dsh-memento', 'memory.db')
  return path.isAbsolute(dbPath) ? dbPath : path.join(home, dbPath)
}

const LAYERS = [['user', 'user-global'], ['user', 'workspace'], ['agent', 'user-global'], ['agent', 'workspace']]
const lim = (b, t, s) => b[t][s === 'user-global' ? 'userGlobal' : 'workspace']

export class MemoryProvider {
  constructor(opts) {
    this.path = resolveDbPath(opts.dbPath ?? '')
    this.gate = opts.gate
    this.label = opts.auditLabel ?? ((o) => `${o} (via approval, writePolicy ${opts.writePolicy ?? 'ask'})`)
    this.limits = structuredClone(DEFAULT_BUDGETS)
    for (const t of ['user', 'agent']) Object.assign(this.limits[t], opts.budgets?.[t] ?? {})
    fs.mkdirSync(path.dirname(this.path), { recursive: true })
    this.db = fs.existsSync(this.path) ? JSON.parse(fs.readFileSync(this.path, 'utf8')) : { entries: [], audit: [], proposals: [], seq: 0 }
  }
  #save() { fs.writeFileSync(this.path, JSON.stringify(this.db)) }
  #audit(row) { this.db.audit.push({ seq: ++this.db.seq, ts: Date.now(), action: row.action, track: row.track ?? null, scope: row.scope ?? null, entryId: row.entryId ?? null, text: row.text ?? null, outcome: row.outcome ?? null, source: row.source ?? null, sessionId: row.sessionId ?? null }) }
  #used(t, s) { return this.db.entries.filter((e) => e.track === t && e.scope === s).reduce((n, e) => n + e.text.length, 0) }
  #check(t, s, delta) {
    const used = this.#used(t, s); const limit = lim(this.limits, t, s)
    if (used + delta > limit) throw memoryError('BUDGET_EXCEEDED', `memory budget exceeded: ${t}/${s} at ${used}/${limit} chars, this write needs ${used + delta} chars; consolidate or remove entries, then retry`, { track: t, scope: s, used, limit, needed: used + delta })
  }
  #valid(x) {
    if (!['user', 'agent'].includes(x.track) || !['user-global', 'workspace'].includes(x.scope)) throw memoryError('INVALID_INPUT', `invalid memory scope: track=${JSON.stringify(x.track)} scope=${JSON.stringify(x.scope)} (track ∈ user|agent, scope ∈ user-global|workspace)`)
    if (typeof x.text !== 'string' || !x.text) throw memoryError('INVALID_INPUT', 'entry text must be a non-empty string')
  }
  async #ask(payload, write) {
    if (!write?.agent?.session?.id) throw memoryError('WRITE_REQUIRES_AGENT', 'memory write requires an owning agent session to route approval through; refuse rather than write unapproved')
    let outcome
    try { outcome = await this.gate(payload, write) } catch { outcome = 'unavailable' }
    const label = this.label(outcome, payload, write)
    if (outcome !== 'allowed-once') {
      this.#audit({ action: `${payload.action}-denied`, track: payload.track, scope: payload.scope, text: payload.text, outcome: label, source: payload.source ?? 'dsh-memento', sessionId: write.agent.session.id })
      this.#save()
      throw memoryError('WRITE_DENIED', `memory write not approved (approval outcome: ${outcome}); nothing was written`, { outcome })
    }
    return label
  }
  #keys(x, write) {
    const h = write.agent.session.header ?? {}
    return {
      workspaceKey: x.scope === 'user-global' ? '' : (x.workspaceKey ?? (h.cwd ? path.resolve(h.cwd) : '')),
      agentKey: x.agentKey ?? (h.agentPreset ? String(h.agentPreset).trim() : ''),
    }
  }
  #entry(x, write) {
    const now = Date.now()
    return { id: randomUUID(), track: x.track, scope: x.scope, ...this.#keys(x, write), text: x.text, source: x.source ?? 'dsh-memento', tags: [...new Set((x.tags ?? []).map((t) => t.trim()))], version: 1, createdAt: now, updatedAt: now, lastRecalled: null, recallCount: 0, sessionId: write.agent.session.id }
  }
  #find(x, match, write) {
    const k = this.#keys(x, write)
    const hits = this.db.entries.filter((e) => e.track === x.track && e.scope === x.scope && (e.agentKey === '' || e.agentKey === k.agentKey) && (x.scope !== 'workspace' || e.workspaceKey === k.workspaceKey) && e.text.toLowerCase().includes(match.toLowerCase()))
    if (hits.length === 0) throw memoryError('ENTRY_NOT_FOUND', `no entry in ${x.track}/${x.scope} contains ${JSON.stringify(match)}; nothing was changed`, { track: x.track, scope: x.scope, match })
    if (hits.length > 1) throw memoryError('AMBIGUOUS_MATCH', `match ${JSON.stringify(match)} is ambiguous in ${x.track}/${x.scope}: ${hits.length} entries contain it; use a longer, unique substring`, { track: x.track, scope: x.scope, match, candidates: hits.length, sample: hits.map((h) => h.text) })
    return hits[0]
  }
  #usage(t, s) { return { track: t, scope: s, used: this.#used(t, s), limit: lim(this.limits, t, s) } }
  async add(x, write) {
    this.#valid(x); this.#check(x.track, x.scope, x.text.length)
    const label = await this.#ask({ action: 'add', track: x.track, scope: x.scope, text: x.text, source: x.source ?? 'dsh-memento' }, write)
    const entry = this.#entry(x, write); this.db.entries.push(entry)
    this.#audit({ action: 'add', track: x.track, scope: x.scope, entryId: entry.id, text: entry.text, outcome: label, source: entry.source, sessionId: entry.sessionId }); this.#save()
    return { entry, usage: this.#usage(x.track, x.scope) }
  }
  async replace(x, write) {
    this.#valid(x); const t = this.#find(x, x.match, write)
    this.#check(x.track, x.scope, x.text.length - t.text.length)
    const label = await this.#ask({ action: 'replace', track: x.track, scope: x.scope, text: `from:\n${t.text}\n\nto:\n${x.text}`, source: x.source ?? 'dsh-memento' }, write)
    const previous = { ...t }; t.text = x.text; if (Array.isArray(x.tags)) t.tags = x.tags; t.version++; t.updatedAt = Date.now()
    this.#audit({ action: 'replace', track: x.track, scope: x.scope, entryId: t.id, text: t.text, outcome: label, source: t.source, sessionId: write.agent.session.id }); this.#save()
    return { previous, entry: { ...t }, usage: this.#usage(x.track, x.scope) }
  }
  async remove(x, write) {
    const t = this.#find(x, x.match, write)
    const label = await this.#ask({ action: 'remove', track: x.track, scope: x.scope, text: t.text, source: t.source }, write)
    this.db.entries = this.db.entries.filter((e) => e !== t)
    this.#audit({ action: 'remove', track: x.track, scope: x.scope, entryId: t.id, text: t.text, outcome: label, source: t.source, sessionId: write.agent.session.id }); this.#save()
    return { entry: t, usage: this.#usage(x.track, x.scope) }
  }
  async consolidate(x, write) {
    this.#valid(x); const ts = x.matches.map((m) => this.#find(x, m, write))
    const label = await this.#ask({ action: 'consolidate', track: x.track, scope: x.scope, text: [...ts.map((t, i) => `remove: ${x.matches[i]}\n${t.text}`), `new text: ${x.text}`].join('\n'), source: x.source ?? 'dsh-memento' }, write)
    this.db.entries = this.db.entries.filter((e) => !ts.includes(e))
    const entry = this.#entry(x, write); this.db.entries.push(entry)
    for (const t of ts) this.#audit({ action: 'consolidate-remove', track: x.track, scope: x.scope, entryId: t.id, text: t.text, outcome: label, source: t.source, sessionId: entry.sessionId })
    this.#audit({ action: 'consolidate-add', track: x.track, scope: x.scope, entryId: entry.id, text: entry.text, outcome: label, source: entry.source, sessionId: entry.sessionId }); this.#save()
    return { removed: ts, entry, usage: this.#usage(x.track, x.scope) }
  }
  async seed(inputs, write) {
    if (!Array.isArray(inputs) || !inputs.length) throw memoryError('INVALID_INPUT', 'seed requires a non-empty entry list')
    inputs.forEach((x) => this.#valid(x))
    const summary = inputs.map((x) => `${x.track}/${x.scope}: ${x.text}`).join('\n')
    const label = await this.#ask({ action: 'seed', track: 'batch', scope: 'batch', text: summary, count: inputs.length }, write)
    const need = new Map(); for (const x of inputs) need.set(`${x.track}\0${x.scope}`, (need.get(`${x.track}\0${x.scope}`) ?? 0) + x.text.length)
    for (const [k, d] of need) { const [t, s] = k.split('\0'); this.#check(t, s, d) }
    const entries = inputs.map((x) => this.#entry(x, write)); this.db.entries.push(...entries)
    this.#audit({ action: 'seed', text: summary, outcome: label, source: 'dsh-memento', sessionId: write.agent.session.id })
    for (const e of entries) this.#audit({ action: 'add', track: e.track, scope: e.scope, entryId: e.id, text: e.text, outcome: label, source: e.source, sessionId: e.sessionId })
    this.#save()
    return { added: entries.length, entries }
  }
  query(filter = {}, opts = {}) {
    let rows = this.db.entries.filter((e) => (!filter.track || e.track === filter.track) && (!filter.scope || e.scope === filter.scope) && (!filter.text || e.text.toLowerCase().includes(filter.text.toLowerCase())) && (typeof opts.agentKey !== 'string' || e.agentKey === '' || e.agentKey === opts.agentKey))
    const total = rows.length
    rows = rows.sort((a, b) => b.recallCount - a.recallCount || b.updatedAt - a.updatedAt).slice(0, Math.min(filter.limit ?? 20, 1000))
    const out = rows.map((e) => ({ ...e }))
    if (opts.countRecall !== false) { for (const e of rows) { e.recallCount++; e.lastRecalled = Date.now() } this.#save() }
    return { entries: out, total, truncated: total > out.length }
  }
  budgets() { return LAYERS.map(([t, s]) => this.#usage(t, s)) }
  listEntries({ agentKey, workspaceKey } = {}) {
    return this.db.entries
      .filter((e) => (typeof agentKey !== 'string' || e.agentKey === '' || e.agentKey === agentKey) && (typeof workspaceKey !== 'string' || e.scope !== 'workspace' || e.workspaceKey === workspaceKey))
      .map((e) => ({ ...e }))
  }
  snapshotRecord(sessionId, text) {
    this.db.snapshots ??= {}
    if (!(sessionId in this.db.snapshots)) {
      this.db.snapshots[sessionId] = text
      this.#audit({ action: 'snapshot', text, outcome: 'ok', source: 'dsh-memento', sessionId })
      this.#save()
    }
    return this.db.snapshots[sessionId]
  }
  auditList(limit = 100) { return [...this.db.audit].reverse().slice(0, limit) }
  proposalAdd(x) {
    const sid = x.sessionId ?? ''
    if (this.db.proposals.some((p) => (p.sessionId ?? '') === sid && p.kind === x.kind)) return null
    const p = { id: randomUUID(), kind: x.kind, track: x.track, scope: x.scope, workspaceKey: x.workspaceKey ?? '', agentKey: x.agentKey ?? '', text: x.text, source: x.source ?? 'dsh-memento', sessionId: x.sessionId ?? null, status: 'pending', createdAt: Date.now(), decidedAt: null }
    this.db.proposals.push(p); this.#save(); return p
  }
  proposalList(status, limit = 50) { return this.db.proposals.filter((p) => !status || p.status === status).slice(0, limit) }
  async proposalDecide(id, decision, write) {
    const p = this.db.proposals.find((q) => q.id === id && q.status === 'pending')
    if (!p) throw memoryError('PROPOSAL_NOT_FOUND', `proposal ${JSON.stringify(id)} is not a pending proposal; nothing was changed`, { id })
    let res = {}
    if (decision === 'approved') res = await this.add({ track: p.track, scope: p.scope, text: p.text, source: 'proposal', workspaceKey: p.workspaceKey, agentKey: p.agentKey }, write)
    p.status = decision; p.decidedAt = Date.now(); this.#save()
    return { proposal: p, ...res }
  }
  close() {}
}
