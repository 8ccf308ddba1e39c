// The slice of Cordis + dsh the plugin's apply() touches, for the plugin tests (which run on
// the real native provider): a context with services, fibers, tools, system prompt, commands,
// web server and approval (the real service's policy + waterfall semantics), and agents.
import { randomUUID } from 'node:crypto'

/** A session with an open turn (approval.request checks the log for it). */
export function makeAgent({ id = `s-${randomUUID()}`, cwd = '/work/ws', agentPreset } = {}) {
  const events = [{ type: 'turn/start' }]
  const session = {
    id,
    header: { cwd, ...(agentPreset ? { agentPreset } : {}) },
    events,
    append: (type, data) => events.push({ type, data }),
  }
  return { id: `agent-${id}`, session }
}

/**
 * A minimal Cordis-like context: on (with prepend), effect, provide/get, inject (child
 * "fibers" run immediately when the service exists), tools, systemPrompt, commands,
 * webServer, approval (with the real service's policy + waterfall semantics).
 */
export function mockCtx({ approvalPolicy = 'ask', withApproval = true, withCommands = true, withWeb = true, sessionQuery } = {}) {
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
      const off = () =>
        listeners.set(
          event,
          (listeners.get(event) ?? []).filter((f) => f !== fn),
        )
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
      if (deps.every((d) => services.has(d)))
        cb(Object.assign(Object.create(ctx), Object.fromEntries(deps.map((d) => [d, services.get(d)]))))
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
      const outcome =
        this.effectivePolicy(req.agent.session) === 'never'
          ? 'rejected'
          : await ctx.waterfall('approval/request', req, async () => 'unavailable')
      req.agent.session.append('approval/decided', { outcome })
      return outcome
    },
  }
  if (withApproval) {
    services.set('approval', approval)
    ctx.approval = approval
  }
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
        return {
          commandId: 'c1',
          result: await def.handler({
            commandId: 'c1',
            agent,
            rawInput: line.slice(m[0].length),
            attachments: [],
            signal: new AbortController().signal,
          }),
        }
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
      /** One request as dsh's web server hands it over (default: a same-origin GET of the page), answered. */
      async call(url, { method = 'GET', headers = { host: '127.0.0.1:8080' }, body } = {}) {
        const u = new URL(url, 'http://x')
        // As dsh's web server matches: the exact route, else the longest prefix route that owns the path.
        const prefix = [...routes.values()]
          .filter((x) => x.kind === 'prefix' && (u.pathname === x.path || u.pathname.startsWith(`${x.path}/`)))
          .sort((a, b) => b.path.length - a.path.length)[0]
        const r = routes.get(`exact ${u.pathname}`) ?? prefix
        const res = fakeResponse()
        if (r) await r.handler({ url, method, headers, body }, res)
        else res.statusCode = 404 // no route: dsh's own 404 (or its page fallback)
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

/** A response as a route handler writes it: status, headers and body kept for the test to read. */
export function fakeResponse() {
  return {
    statusCode: 0,
    headers: {},
    body: undefined,
    setHeader(k, v) {
      this.headers[k] = v
    },
    end(b) {
      this.body = b
    },
  }
}
