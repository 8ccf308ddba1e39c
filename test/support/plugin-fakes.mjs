// Test doubles for the plugin unit tests (Node 20, no dsh, no native build):
// * FakeProvider: an in-memory MemoryProvider following index.d.ts (gate + auditLabel called
//   with the very write object the caller passed; budgets per workspace; visibility).
// * mockCtx(): the slice of Cordis + dsh services apply() touches.
import { randomUUID } from 'node:crypto'
import { agentKeyOf, workspaceKeyOf } from './keys.mjs'

const err = (code, message, details = {}) => Object.assign(new Error(message), { name: 'MemoryError', code, details })
export { agentKeyOf, workspaceKeyOf }
export const isMemoryError = (e) => e instanceof Error && typeof e.code === 'string' && typeof e.details === 'object'
const LAYERS = [['user', 'user-global'], ['user', 'workspace'], ['agent', 'user-global'], ['agent', 'workspace']]
const limitKey = (scope) => (scope === 'user-global' ? 'userGlobal' : 'workspace')

export class FakeProvider {
  static instances = []
  constructor(options) {
    this.options = options
    this.path = options.dbPath || '/fake/memory.db'
    this.entries = []
    this.audit = []
    this.proposals = []
    this.snapshots = new Map()
    this.closed = false
    this.gateCalls = []
    FakeProvider.instances.push(this)
  }
  #assertOpen() {
    if (this.closed) throw err('STORE_CORRUPT', 'store is closed')
  }
  #keys(write) {
    const s = write?.agent?.session
    if (!write?.agent || typeof s?.id !== 'string') throw err('WRITE_REQUIRES_AGENT', 'memory write requires an owning agent session to route approval through; refuse rather than write unapproved')
    return { sessionId: s.id, workspaceKey: workspaceKeyOf(s.header?.cwd), agentKey: agentKeyOf(s.header?.agentPreset) }
  }
  #limit(track, scope) {
    return this.options.budgets?.[track]?.[limitKey(scope)] ?? 2000
  }
  #used(track, scope, workspaceKey) {
    return this.entries.filter((e) => e.track === track && e.scope === scope && (scope === 'user-global' || e.workspaceKey === workspaceKey)).reduce((n, e) => n + e.text.length, 0)
  }
  #usage(track, scope, workspaceKey) {
    return { track, scope, used: this.#used(track, scope, workspaceKey), limit: this.#limit(track, scope) }
  }
  #check(track, scope, wk, delta) {
    const used = this.#used(track, scope, wk)
    const limit = this.#limit(track, scope)
    if (used + delta > limit) throw err('BUDGET_EXCEEDED', `memory budget exceeded: ${track}/${scope} at ${used}/${limit} chars, this write needs ${used + delta} chars; consolidate or remove entries, then retry`, { track, scope, used, limit, needed: used + delta })
  }
  #layer(input) {
    if (!['user', 'agent'].includes(input?.track) || !['user-global', 'workspace'].includes(input?.scope)) throw err('INVALID_INPUT', `invalid memory scope: track=${JSON.stringify(input?.track)} scope=${JSON.stringify(input?.scope)} (track ∈ user|agent, scope ∈ user-global|workspace)`)
  }
  #find(input, keys) {
    const wk = input.workspaceKey || keys.workspaceKey
    const ak = input.agentKey || keys.agentKey
    const m = input.match.toLowerCase()
    const hits = this.entries.filter((e) => e.track === input.track && e.scope === input.scope && (e.agentKey === '' || e.agentKey === ak) && (input.scope === 'user-global' || e.workspaceKey === wk) && e.text.toLowerCase().includes(m))
    if (hits.length === 0) throw err('ENTRY_NOT_FOUND', `no entry in ${input.track}/${input.scope} contains ${JSON.stringify(input.match)}; nothing was changed`, { track: input.track, scope: input.scope, match: input.match })
    if (hits.length > 1) throw err('AMBIGUOUS_MATCH', `match ${JSON.stringify(input.match)} is ambiguous in ${input.track}/${input.scope}: ${hits.length} entries contain it; use a longer, unique substring`, { track: input.track, scope: input.scope, match: input.match, candidates: hits.length, sample: hits.map((h) => h.text) })
    return hits[0]
  }
  async #ask(payload, write, keys) {
    this.gateCalls.push({ payload, write })
    const outcome = await this.options.gate(payload, write)
    const label = this.options.auditLabel ? this.options.auditLabel(outcome, payload, write) : `${outcome} (via approval, writePolicy ${this.options.writePolicy ?? 'ask'})`
    if (outcome !== 'allowed-once') {
      this.#audit({ action: `${payload.action}-denied`, track: payload.track, scope: payload.scope, text: payload.text, outcome: label, source: payload.source ?? 'dsh-memento', sessionId: keys.sessionId })
      throw err('WRITE_DENIED', `memory write not approved (approval outcome: ${outcome}); nothing was written`, { outcome })
    }
    write.signal?.throwIfAborted?.()
    return label
  }
  #audit(row) {
    this.audit.push({ seq: this.audit.length + 1, ts: Date.now(), action: row.action, track: row.track ?? null, scope: row.scope ?? null, entryId: row.entryId ?? null, text: row.text ?? null, outcome: row.outcome ?? null, source: row.source ?? null, sessionId: row.sessionId ?? null })
  }
  #insert(input, keys) {
    const now = Date.now()
    const e = {
      id: randomUUID(), track: input.track, scope: input.scope,
      workspaceKey: input.scope === 'user-global' ? '' : (input.workspaceKey ?? keys.workspaceKey),
      agentKey: input.agentKey ?? keys.agentKey, text: input.text, source: input.source ?? 'dsh-memento', tags: input.tags ?? [],
      version: 1, createdAt: now + this.entries.length, updatedAt: now, lastRecalled: null, recallCount: 0, sessionId: keys.sessionId,
    }
    this.entries.push(e)
    return e
  }
  async add(input, write) {
    this.#assertOpen()
    const keys = this.#keys(write)
    this.#layer(input)
    if (typeof input.text !== 'string' || input.text.length === 0) throw err('INVALID_INPUT', 'entry text must be a non-empty string')
    const wk = input.workspaceKey ?? keys.workspaceKey
    this.#check(input.track, input.scope, wk, input.text.length)
    const label = await this.#ask({ action: 'add', track: input.track, scope: input.scope, text: input.text, source: input.source ?? 'dsh-memento' }, write, keys)
    const entry = this.#insert(input, keys)
    this.#audit({ action: 'add', track: entry.track, scope: entry.scope, entryId: entry.id, text: entry.text, outcome: label, source: entry.source, sessionId: keys.sessionId })
    return { entry: { ...entry }, usage: this.#usage(entry.track, entry.scope, entry.workspaceKey) }
  }
  async replace(input, write) {
    this.#assertOpen()
    const keys = this.#keys(write)
    this.#layer(input)
    const target = this.#find(input, keys)
    const label = await this.#ask({ action: 'replace', track: input.track, scope: input.scope, text: `from:\n${target.text}\n\nto:\n${input.text}`, source: input.source ?? 'dsh-memento' }, write, keys)
    const previous = { ...target }
    Object.assign(target, { text: input.text, version: target.version + 1, updatedAt: Date.now() })
    if (Array.isArray(input.tags)) target.tags = input.tags
    this.#audit({ action: 'replace', track: target.track, scope: target.scope, entryId: target.id, text: target.text, outcome: label, source: target.source, sessionId: keys.sessionId })
    return { previous, entry: { ...target }, usage: this.#usage(target.track, target.scope, target.workspaceKey) }
  }
  async remove(input, write) {
    this.#assertOpen()
    const keys = this.#keys(write)
    this.#layer(input)
    const target = this.#find(input, keys)
    const label = await this.#ask({ action: 'remove', track: input.track, scope: input.scope, text: target.text, source: target.source }, write, keys)
    this.entries = this.entries.filter((e) => e !== target)
    this.#audit({ action: 'remove', track: target.track, scope: target.scope, entryId: target.id, text: target.text, outcome: label, source: target.source, sessionId: keys.sessionId })
    return { entry: { ...target }, usage: this.#usage(target.track, target.scope, target.workspaceKey) }
  }
  async consolidate(input, write) {
    this.#assertOpen()
    const keys = this.#keys(write)
    this.#layer(input)
    const targets = input.matches.map((match) => this.#find({ ...input, match }, keys))
    const label = await this.#ask({ action: 'consolidate', track: input.track, scope: input.scope, text: [...targets.map((t, i) => `remove: ${input.matches[i]}\n${t.text}`), `new text: ${input.text}`].join('\n'), source: input.source ?? 'dsh-memento' }, write, keys)
    this.entries = this.entries.filter((e) => !targets.includes(e))
    const entry = this.#insert(input, keys)
    for (const t of targets) this.#audit({ action: 'consolidate-remove', track: t.track, scope: t.scope, entryId: t.id, text: t.text, outcome: label, source: t.source, sessionId: keys.sessionId })
    this.#audit({ action: 'consolidate-add', track: entry.track, scope: entry.scope, entryId: entry.id, text: entry.text, outcome: label, source: entry.source, sessionId: keys.sessionId })
    return { removed: targets.map((t) => ({ ...t })), entry: { ...entry }, usage: this.#usage(entry.track, entry.scope, entry.workspaceKey) }
  }
  async seed(inputs, write) {
    this.#assertOpen()
    const keys = this.#keys(write)
    if (!Array.isArray(inputs) || inputs.length === 0) throw err('INVALID_INPUT', 'seed requires a non-empty entry list')
    for (const i of inputs) this.#layer(i)
    const summary = inputs.map((i) => `${i.track}/${i.scope}: ${i.text}`).join('\n')
    const label = await this.#ask({ action: 'seed', track: 'batch', scope: 'batch', text: summary, count: inputs.length }, write, keys)
    const entries = inputs.map((i) => this.#insert(i, keys))
    this.#audit({ action: 'seed', text: summary, outcome: label, source: 'dsh-memento', sessionId: keys.sessionId })
    for (const e of entries) this.#audit({ action: 'add', track: e.track, scope: e.scope, entryId: e.id, text: e.text, outcome: label, source: e.source, sessionId: keys.sessionId })
    return { added: entries.length, entries: entries.map((e) => ({ ...e })) }
  }
  query(filter = {}, opts = {}) {
    this.#assertOpen()
    let rows = this.entries.filter((e) =>
      (filter.track === undefined || e.track === filter.track) && (filter.scope === undefined || e.scope === filter.scope) &&
      (!filter.text || e.text.toLowerCase().includes(filter.text.toLowerCase())) &&
      (typeof opts.agentKey !== 'string' || e.agentKey === '' || e.agentKey === opts.agentKey) &&
      (typeof opts.workspaceKey !== 'string' || e.scope === 'user-global' || e.workspaceKey === opts.workspaceKey))
    const total = rows.length
    rows = rows.slice(0, filter.limit ?? this.options.defaultQueryLimit ?? 20)
    const out = rows.map((e) => ({ ...e }))
    if (opts.countRecall !== false) for (const e of rows) e.recallCount += 1
    if (opts.sessionId !== undefined) this.#audit({ action: 'recalled', track: filter.track, scope: filter.scope, text: typeof filter.text === 'string' ? filter.text : null, outcome: 'ok', source: 'dsh-memento', sessionId: opts.sessionId })
    return { entries: out, total, truncated: total > out.length }
  }
  budgets(opts = {}) {
    this.#assertOpen()
    return LAYERS.map(([t, s]) => this.#usage(t, s, opts.workspaceKey))
  }
  listEntries(opts = {}) {
    this.#assertOpen()
    return this.entries.filter((e) => visibleTo(e, opts)).map((e) => ({ ...e }))
  }
  auditList(limit = 100) {
    this.#assertOpen()
    return [...this.audit].reverse().slice(0, limit)
  }
  proposalAdd(input) {
    if (this.proposals.some((p) => p.sessionId === input.sessionId && p.kind === input.kind)) return null
    const p = { id: randomUUID(), kind: input.kind, track: input.track, scope: input.scope, workspaceKey: input.workspaceKey ?? '', agentKey: input.agentKey ?? '', text: input.text, source: input.source ?? 'dsh-memento', sessionId: input.sessionId ?? null, status: 'pending', createdAt: Date.now(), decidedAt: null }
    this.proposals.push(p)
    this.#audit({ action: 'proposal', track: p.track, scope: p.scope, entryId: p.id, text: p.text, outcome: 'pending', source: p.source, sessionId: p.sessionId })
    return { ...p }
  }
  proposalList(status = 'pending', limit = 50) {
    return this.proposals.filter((p) => p.status === status).slice(0, limit).map((p) => ({ ...p }))
  }
  async proposalDecide(id, decision, write) {
    const p = this.proposals.find((x) => x.id === id && x.status === 'pending')
    if (!p) throw err('PROPOSAL_NOT_FOUND', `proposal ${JSON.stringify(id)} is not a pending proposal; nothing was changed`, { id })
    if (decision === 'dismissed') {
      Object.assign(p, { status: 'dismissed', decidedAt: Date.now() })
      return { proposal: { ...p } }
    }
    const r = await this.add({ track: p.track, scope: p.scope, text: p.text, source: 'proposal', workspaceKey: p.workspaceKey, agentKey: p.agentKey }, write)
    Object.assign(p, { status: 'approved', decidedAt: Date.now() })
    return { proposal: { ...p }, entry: r.entry, usage: r.usage }
  }
  /** The native snapshot's text for the fake's entries (a test double; the real one is src/protocol/snapshot.rs + pending.rs). */
  snapshot(keys = {}, labels = {}, maxProposals = 0) {
    const visible = (x) => (x.agentKey === '' || x.agentKey === keys.agentKey) && (x.scope === 'user-global' || x.workspaceKey === keys.workspaceKey)
    const rows = this.budgets({ workspaceKey: keys.workspaceKey })
    const sections = LAYERS.flatMap(([track, scope]) => {
      const list = this.listEntries(keys).filter((e) => e.track === track && e.scope === scope)
      const row = rows.find((b) => b.track === track && b.scope === scope)
      return list.length ? [[`## ${labels.groups[`${track}/${scope}`]} — ${row.used}/${row.limit} ${labels.usageSuffix}`, ...list.map((e) => `- ${e.text}`)].join('\n')] : []
    })
    const pending = this.proposals.filter((p) => p.status === 'pending' && visible(p)).slice(0, maxProposals)
    if (pending.length) sections.push([`## ${labels.proposalsHeader}`, ...pending.map((p) => `- [${p.id}] ${p.track}/${p.scope}: ${p.text}`)].join('\n'))
    return sections.length ? [labels.header, ...sections].join('\n\n') : ''
  }
  snapshotRecord(sessionId, text) {
    if (!this.snapshots.has(sessionId)) {
      this.snapshots.set(sessionId, text)
      this.#audit({ action: 'snapshot', text, outcome: 'ok', source: 'dsh-memento', sessionId })
    }
    return this.snapshots.get(sessionId)
  }
  close() {
    this.closed = true
  }
}

export const fakeModule = { MemoryProvider: FakeProvider, workspaceKeyOf, agentKeyOf, isMemoryError }

/** A session with an open turn (approval.request checks the log for it). */
export function makeAgent({ id = `s-${randomUUID()}`, cwd = '/work/ws', agentPreset } = {}) {
  const events = [{ type: 'turn/start' }]
  const session = { id, header: { cwd, ...(agentPreset ? { agentPreset } : {}) }, events, append: (type, data) => events.push({ type, data }) }
  return { id: `agent-${id}`, session }
}

/**
 * A minimal Cordis-like context: on (with prepend), effect, provide/get, inject (child
 * "fibers" run immediately when the service exists), tools, systemPrompt, commands,
 * webServer, approval (with the real service's policy + waterfall semantics).
 */
export function mockCtx({ approvalPolicy = 'ask', withCommands = true, withWeb = true, sessionQuery } = {}) {
  const listeners = new Map()
  const disposers = []
  const services = new Map()
  const ctx = {
    disposers,
    services,
    on(event, fn, opts = {}) {
      const list = listeners.get(event) ?? []
      if (opts.prepend) list.unshift(fn)
      else list.push(fn)
      listeners.set(event, list)
      const off = () => listeners.set(event, (listeners.get(event) ?? []).filter((f) => f !== fn))
      disposers.push(off)
      return off
    },
    emit(event, ...args) {
      for (const fn of listeners.get(event) ?? []) fn(...args)
    },
    async waterfall(event, req, terminal) {
      const list = listeners.get(event) ?? []
      const step = (i) => (i >= list.length ? terminal() : list[i](req, () => step(i + 1)))
      return step(0)
    },
    effect(execute) {
      const d = execute()
      if (typeof d === 'function') disposers.push(d)
      return d
    },
    provide(name, value) {
      services.set(name, value)
      const off = () => services.delete(name)
      disposers.push(off)
      return off
    },
    get(name) {
      return services.get(name)
    },
    inject(deps, cb) {
      if (deps.every((d) => services.has(d))) cb(Object.assign(Object.create(ctx), Object.fromEntries(deps.map((d) => [d, services.get(d)]))))
    },
    dispose() {
      for (const d of disposers.splice(0).reverse()) d()
    },
  }
  const tools = new Map()
  ctx.tools = {
    map: tools,
    register(def) {
      if (tools.has(def.name)) throw new Error(`duplicate tool ${def.name}`)
      tools.set(def.name, def)
      const off = () => tools.delete(def.name)
      disposers.push(off)
      return off
    },
    get: (n) => tools.get(n),
  }
  const sections = new Map()
  ctx.systemPrompt = {
    map: sections,
    section(s) {
      sections.set(s.name, s)
      const off = () => sections.delete(s.name)
      disposers.push(off)
      return off
    },
  }
  const approval = {
    config: { policy: approvalPolicy },
    requests: [],
    overrides: new Map(),
    effectivePolicy(session) {
      return this.overrides.get(session.id) ?? this.config.policy
    },
    async request(req) {
      if (!req.agent.session.events.some((e) => e.type === 'turn/start')) throw new Error('approval.request() outside an open turn')
      this.requests.push(req)
      req.agent.session.append('approval/asked', { toolName: req.toolName, reason: req.reason })
      const outcome = this.effectivePolicy(req.agent.session) === 'never' ? 'rejected' : await ctx.waterfall('approval/request', req, async () => 'unavailable')
      req.agent.session.append('approval/decided', { outcome })
      return outcome
    },
  }
  services.set('approval', approval)
  ctx.approval = approval
  services.set('tools', ctx.tools)
  services.set('systemPrompt', ctx.systemPrompt)
  if (withCommands) {
    const commands = new Map()
    ctx.commands = {
      map: commands,
      register(def) {
        commands.set(def.name, def)
        return () => commands.delete(def.name)
      },
      async execute(agent, line) {
        const m = /^\/([a-z][a-z0-9_-]*)(?=$|[\t\n\r ])/u.exec(line)
        const def = m && commands.get(m[1])
        if (!def) return undefined
        return { commandId: 'c1', result: await def.handler({ commandId: 'c1', agent, rawInput: line.slice(m[0].length), attachments: [], signal: new AbortController().signal }) }
      },
    }
    services.set('commands', ctx.commands)
  }
  if (withWeb) {
    const routes = new Map()
    ctx.webServer = {
      routes,
      register(r) {
        const key = `${r.kind} ${r.path}`
        if (routes.has(key)) throw new Error(`duplicate ${r.kind} route ${r.path}`)
        routes.set(key, r)
        return () => routes.delete(key)
      },
      /** One request as dsh's web server hands it over (default: a same-origin GET of the page). */
      async call(url, { method = 'GET', headers = { host: '127.0.0.1:8080' } } = {}) {
        const u = new URL(url, 'http://x')
        const r = routes.get(`exact ${u.pathname}`)
        const res = { statusCode: 0, headers: {}, body: undefined, setHeader(k, v) { this.headers[k] = v }, end(b) { this.body = b } }
        r.handler({ url, method, headers }, res)
        let json
        try {
          json = JSON.parse(res.body)
        } catch {}
        return { status: res.statusCode, headers: res.headers, body: res.body, json }
      },
    }
    services.set('webServer', ctx.webServer)
  }
  if (sessionQuery) services.set('sessionQuery', sessionQuery)
  return ctx
}

/** The provider's `listEntries({agentKey, workspaceKey})` narrowing (either key may be absent). */
export function visibleTo(e, { agentKey, workspaceKey } = {}) {
  return (typeof agentKey !== 'string' || e.agentKey === '' || e.agentKey === agentKey) && (typeof workspaceKey !== 'string' || e.scope !== 'workspace' || e.workspaceKey === workspaceKey)
}
