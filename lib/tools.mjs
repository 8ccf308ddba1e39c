// The `memory` tool (§7.4) and the `memory_recall` tool (§7.8), as raw registry definitions
// (JSON Schema parameters and output; no import of @deepseek-ai/dsh-tools is needed).
import { strings } from './strings.mjs'
import { validate } from './jsonschema.mjs'
import { eventText } from './events.mjs'
import { isMemoryError } from './errors.mjs'
import { native, SCOPES, TRACKS, writeLayer } from './native.mjs'

const str = { type: 'string' }
const int = { type: 'integer' }
const strArray = { type: 'array', items: str }
const closed = (properties, required) => ({ type: 'object', properties, ...(required ? { required } : {}), additionalProperties: false })
const publicEntrySchema = closed({ id: str, track: str, scope: str, text: str, source: str, tags: strArray }, [
  'id',
  'track',
  'scope',
  'text',
])
const idText = closed({ id: str, text: str }, ['id', 'text'])
const usageSchema = closed({ track: str, scope: str, used: int, limit: int }, ['track', 'scope', 'used', 'limit'])
const similarSchema = {
  type: 'array',
  items: closed({ id: str, text: str, score: { type: 'number' }, relation: str, reason: str }, [
    'id',
    'text',
    'score',
    'relation',
    'reason',
  ]),
}
const versionSchema = closed({ version: int, seq: int, ts: int, action: str, text: str, tags: strArray, source: str, reverts: int }, [
  'version',
  'seq',
  'ts',
  'action',
  'text',
  'tags',
  'source',
])
const historySchema = closed(
  {
    entryId: str,
    track: str,
    scope: str,
    complete: { type: 'boolean' },
    versions: { type: 'array', items: versionSchema },
    ended: closed({ seq: int, ts: int, action: str, into: str }, ['seq', 'ts', 'action']),
  },
  ['entryId', 'track', 'scope', 'complete', 'versions'],
)
const suggestionSchema = {
  type: 'array',
  items: closed({ action: str, why: str, frees: int, matches: strArray, match: str, text: str }, ['action', 'why', 'frees']),
}

export const MEMORY_OUTPUT_SCHEMA = closed(
  {
    action: str,
    ok: { type: 'boolean' },
    entry: publicEntrySchema,
    removed: { type: 'array', items: idText },
    previous: idText,
    entries: { type: 'array', items: publicEntrySchema },
    total: int,
    truncated: { type: 'boolean' },
    usage: usageSchema,
    similar: similarSchema,
    history: historySchema,
    reverted: int,
    changes: { type: 'array', items: closed({ action: str, entry: publicEntrySchema }, ['action', 'entry']) },
    error: closed(
      {
        code: str,
        message: str,
        outcome: str,
        reason: str,
        usage: usageSchema,
        candidates: int,
        sample: strArray,
        current: idText,
        reverts: int,
        suggestions: suggestionSchema,
      },
      ['code', 'message'],
    ),
  },
  ['action', 'ok'],
)

export const RECALL_OUTPUT_SCHEMA = closed(
  {
    ok: { type: 'boolean' },
    memory: closed({ entries: { type: 'array', items: publicEntrySchema }, total: int, truncated: { type: 'boolean' } }, [
      'entries',
      'total',
      'truncated',
    ]),
    history: closed(
      {
        available: { type: 'boolean' },
        sessions: {
          type: 'array',
          items: closed({ sessionId: str, matches: int, snippets: strArray }, ['sessionId', 'matches', 'snippets']),
        },
        error: str,
      },
      ['available', 'sessions'],
    ),
    error: closed({ code: str, message: str }, ['code', 'message']),
  },
  ['ok'],
)

export const ACTIONS = ['add', 'replace', 'remove', 'consolidate', 'query', 'history', 'undo']

export function memoryParameters(language) {
  const p = strings(language).param
  return {
    type: 'object',
    properties: {
      action: { type: 'string', enum: ACTIONS, description: p.action },
      track: { type: 'string', enum: [...TRACKS], description: p.track },
      scope: { type: 'string', enum: [...SCOPES], description: p.scope },
      text: { type: 'string', description: p.text },
      match: { type: 'string', description: p.match },
      matches: { type: 'array', items: { type: 'string' }, description: p.matches },
      limit: { type: 'integer', description: p.limit },
      seq: { type: 'integer', description: p.seq },
      tags: { type: 'array', items: { type: 'string' }, description: p.tags },
    },
    required: ['action'],
  }
}

/** Text as the model reads it in a result: further lines quoted (as in the snapshot), so none reads as a heading or another entry. */
const quoted = (text) => native.visibleLines(text).join('\n  > ')
const entryLine = (e) => `- [${e.track}/${e.scope}] ${quoted(e.text)}`

export const publicEntry = (e) => ({ id: e.id, track: e.track, scope: e.scope, text: e.text, source: e.source, tags: [...(e.tags ?? [])] })
const usageOf = (u) => ({ track: u.track, scope: u.scope, used: u.used, limit: u.limit })
/** An entry's history as the model reads it: each version with the seq of the change that made it (what `undo` takes). */
function publicHistory(h) {
  const last = h.versions.at(-1)
  return {
    entryId: h.entryId,
    track: last.track,
    scope: last.scope,
    complete: h.complete,
    versions: h.versions.map((v) => ({
      version: v.version,
      seq: v.seq,
      ts: v.ts,
      action: v.action,
      text: v.text,
      tags: [...v.tags],
      source: v.source,
      ...(v.reverts !== undefined ? { reverts: v.reverts } : {}),
    })),
    ...(h.ended
      ? { ended: { seq: h.ended.seq, ts: h.ended.ts, action: h.ended.action, ...(h.ended.into ? { into: h.ended.into } : {}) } }
      : {}),
  }
}

/** The structured error the model sees: code, message and the details it can act on. */
export function toolError(e) {
  const d = e.details ?? {}
  const out = { code: e.code, message: e.message }
  if (typeof d.outcome === 'string') out.outcome = d.outcome
  if (typeof d.reason === 'string') out.reason = d.reason
  if (typeof d.used === 'number') out.usage = { track: d.track, scope: d.scope, used: d.used, limit: d.limit }
  if (typeof d.candidates === 'number') out.candidates = d.candidates
  if (Array.isArray(d.sample)) out.sample = d.sample
  // A target rewritten while its approval waited (or, for an undo, since the change): the model re-plans against this text.
  if (d.current) out.current = { id: d.current.id, text: d.current.text }
  if (typeof d.reverts === 'number') out.reverts = d.reverts
  // A full layer: the writes that make room, as the tool takes them.
  if (Array.isArray(d.suggestions) && d.suggestions.length) {
    out.suggestions = d.suggestions.map((s) => ({
      action: s.action,
      why: s.why,
      frees: s.frees,
      ...(s.action === 'consolidate' ? { matches: s.input.matches, text: s.input.text } : { match: s.input.match }),
    }))
  }
  return out
}

/** Pure render of a `memory` tool result into one text block. */
export function renderMemoryResult(value, language = 'en') {
  const r = strings(language).render
  let text
  if (!value.ok) {
    text = r.failed(value.action, value.error?.message ?? '')
    if (value.error?.current) text += `\n${r.current(quoted(value.error.current.text))}`
    if (value.error?.suggestions)
      text += `\n${[r.room, ...value.error.suggestions.map((s) => `- ${s.action === 'consolidate' ? r.roomConsolidate(s.matches.map(JSON.stringify).join(', '), JSON.stringify(s.text)) : r.roomRemove(JSON.stringify(s.match))} (${r.frees(s.frees)}; ${s.why})`)].join('\n')}`
  } else if (value.action === 'query') {
    text =
      value.entries.length === 0
        ? r.noMatch
        : [r.matches(value.entries.length, value.total, value.truncated), ...value.entries.map(entryLine)].join('\n')
  } else if (value.action === 'history') {
    const h = value.history
    text = [
      r.versionsHead(h.entryId, h.track, h.scope, h.versions.length),
      ...(h.complete ? [] : [r.versionsPruned]),
      ...h.versions.map((v) => r.versionLine(v.version, v.seq, v.action, v.reverts, quoted(v.text))),
      h.ended ? r.versionsEnded(h.ended.seq, h.ended.into) : r.versionsLive(h.versions.at(-1).version),
    ].join('\n')
  } else if (value.action === 'undo') {
    text = [
      r.undone(value.reverted, value.changes.length),
      ...value.changes.map((c) => `- ${r.undoChange[c.action]} [${c.entry.track}/${c.entry.scope}] ${quoted(c.entry.text)}`),
    ].join('\n')
  } else if (value.action === 'consolidate') {
    text = `${r.consolidated(value.entry.track, value.entry.scope, value.removed.length, quoted(value.entry.text))}\n${r.budget(value.usage.used, value.usage.limit)}`
  } else {
    text = `${r.written(r.changed[value.action], value.entry.track, value.entry.scope, quoted(value.entry.text))}\n${r.budget(value.usage.used, value.usage.limit)}`
  }
  // What the new text is like: it was written anyway (duplicates are legal); the model may clean up.
  for (const s of value.similar ?? []) text += `\n${r.similar(s.relation, quoted(s.text), s.score.toFixed(2), s.reason, value.action)}`
  return [{ type: 'text', text }]
}

/** A registry tool that stops on an aborted signal and answers `invalid(args, error)` to arguments its schema refuses. */
function defineTool({ name, description, parameters, schema, render, invalid, run }) {
  return {
    name,
    description,
    parameters,
    output: { schema, render: (_args, value) => render(value) },
    async execute(args, exec) {
      exec?.signal?.throwIfAborted?.()
      const violations = validate(parameters, args ?? {}, 'arguments')
      if (violations.length > 0) return invalid(args, { code: 'INVALID_INPUT', message: `invalid arguments: ${violations.join('; ')}` })
      return run(args, exec)
    },
  }
}

/** `{similar}`: the stored entries a write's new text most likely duplicates or updates, as its approval showed them. */
const hintsOf = (similar) =>
  similar.length ? { similar: similar.map(({ id, text, score, relation, reason }) => ({ id, text, score, relation, reason })) } : {}

/** Query options for a session's visible set (D1: its agent layer and its own workspace); a session id audits the recall. */
const visibleTo = (keys) => ({
  ...(keys.sessionId ? { sessionId: keys.sessionId } : {}),
  agentKey: keys.agentKey,
  workspaceKey: keys.workspaceKey,
})

/**
 * The `memory` tool. Its writes go to the provider with a write context it made itself, so that
 * `similarOf(write)` (what the gate saw) can tell the model which stored entries its text is like.
 * `source` names the writer (dsh's model is `memory-tool`, an MCP client `mcp`).
 */
export function makeMemoryTool({ service, provider, config, similarOf = () => [], source = 'memory-tool' }) {
  const language = config.language
  return defineTool({
    name: 'memory',
    description: strings(language).toolDescription,
    parameters: memoryParameters(language),
    schema: MEMORY_OUTPUT_SCHEMA,
    render: (value) => renderMemoryResult(value, language),
    invalid: (args, error) => ({ action: String(args?.action ?? ''), ok: false, error }),
    async run(args, exec) {
      const action = args.action
      const agent = exec?.agent
      const session = agent?.session
      // The writer's source is what a writePolicies["source:…"] setting keys on.
      const write = { agent, source, ...(exec?.callId ? { callId: exec.callId } : {}), ...(exec?.signal ? { signal: exec.signal } : {}) }
      const layer = writeLayer(args)
      const tags = args.tags !== undefined ? { tags: args.tags } : {}
      try {
        switch (action) {
          case 'query': {
            const keys = service.keysOf(session)
            const filter = {}
            for (const k of ['track', 'scope', 'text', 'limit']) if (args[k] !== undefined) filter[k] = args[k]
            const r = service.query(filter, visibleTo(keys))
            return { action, ok: true, entries: r.entries.map(publicEntry), total: r.total, truncated: r.truncated }
          }
          case 'history': {
            // Of what this session sees: the entry is found as replace finds it.
            const { workspaceKey, agentKey } = service.keysOf(session)
            const target = { match: args.match, ...(args.track ? { track: args.track } : {}), ...(args.scope ? { scope: args.scope } : {}) }
            return { action, ok: true, history: publicHistory(service.history(target, { workspaceKey, agentKey })) }
          }
          case 'undo': {
            // The session's own write context: the provider plans the undo within what it sees, and asks.
            const r = await provider.revert(args.seq, write)
            return {
              action,
              ok: true,
              reverted: r.reverted,
              changes: r.changes.map((c) => ({ action: c.action, entry: publicEntry(c.entry) })),
            }
          }
          case 'add':
          case 'replace':
          case 'remove':
          case 'consolidate': {
            // No owning session: the provider refuses with WRITE_REQUIRES_AGENT before anything else.
            if (action === 'add') {
              const r = await provider.add({ ...layer, text: args.text, source, ...tags }, write)
              return { action, ok: true, entry: publicEntry(r.entry), usage: usageOf(r.usage), ...hintsOf(similarOf(write)) }
            }
            if (action === 'replace') {
              const r = await provider.replace({ ...layer, match: args.match, text: args.text, source, ...tags }, write)
              return {
                action,
                ok: true,
                entry: publicEntry(r.entry),
                previous: { id: r.previous.id, text: r.previous.text },
                usage: usageOf(r.usage),
                ...hintsOf(similarOf(write)),
              }
            }
            if (action === 'remove') {
              const r = await provider.remove({ ...layer, match: args.match, source }, write)
              return { action, ok: true, entry: publicEntry(r.entry), usage: usageOf(r.usage) }
            }
            const r = await provider.consolidate({ ...layer, matches: args.matches, text: args.text, source, ...tags }, write)
            return {
              action,
              ok: true,
              entry: publicEntry(r.entry),
              removed: r.removed.map((e) => ({ id: e.id, text: e.text })),
              usage: usageOf(r.usage),
            }
          }
          default:
            return {
              action: String(action),
              ok: false,
              error: { code: 'INVALID_INPUT', message: `unknown memory action ${JSON.stringify(action)}` },
            }
        }
      } catch (e) {
        if (isMemoryError(e)) return { action, ok: false, error: toolError(e) }
        throw e
      }
    },
  })
}

export function recallParameters(language, config) {
  const p = strings(language).recallParam
  return {
    type: 'object',
    properties: {
      query: { type: 'string', description: p.query },
      memoryLimit: { type: 'integer', description: `${p.memoryLimit}` },
      historyLimit: { type: 'integer', description: `${p.historyLimit} (default ${config.recall.historyLimitDefault})` },
    },
    required: ['query'],
  }
}

const cut = (text, n) => (text.length > n ? `${text.slice(0, n)}…` : text)

/** History part of memory_recall: degrades to `{available:false}` without sessionQuery. */
export async function recallHistory(sessionQuery, { query, cwd, historyLimit, config, signal, now = Date.now() }) {
  if (!sessionQuery || typeof sessionQuery.filterSessions !== 'function') return { available: false, sessions: [] }
  try {
    const filters = []
    if (typeof cwd === 'string' && cwd.length > 0) filters.push({ kind: 'cwd', values: [cwd] })
    filters.push({ kind: 'created-at', from: now - config.recall.windowDays * 86_400_000 })
    const records = await sessionQuery.filterSessions(filters, signal)
    const sessions = []
    for (const record of (records ?? []).slice(0, historyLimit)) {
      signal?.throwIfAborted?.()
      const sessionId = record?.header?.id ?? record?.id
      if (typeof sessionId !== 'string') continue
      const matched = await sessionQuery.filterEvents(sessionId, [{ kind: 'text', text: query }], signal)
      if (!Array.isArray(matched) || matched.length === 0) continue
      const snippets = []
      try {
        const read = await sessionQuery.readSession(sessionId, signal)
        const events = read?.events ?? []
        for (const hit of matched.slice(0, config.recall.snippetCap)) {
          const seq = typeof hit === 'number' ? hit : hit?.seq
          const event = events.find((e) => e?.seq === seq) ?? (typeof hit === 'object' ? hit : undefined)
          const text = eventText(event)
          if (text) snippets.push(cut(text, config.recall.snippetChars))
        }
      } catch {
        /* snippets stay empty */
      }
      sessions.push({ sessionId, matches: matched.length, snippets })
    }
    return { available: true, sessions }
  } catch (e) {
    if (signal?.aborted) throw e
    return { available: false, sessions: [], error: String(e?.message ?? e) }
  }
}

/** Pure render of a `memory_recall` result; `{history: false}` renders its memory part alone (outside dsh there is no session history). */
export function renderRecallResult(value, language = 'en', { history = true } = {}) {
  const r = strings(language).render
  if (!value.ok) return [{ type: 'text', text: r.failed('recall', value.error?.message ?? '') }]
  const m = value.memory
  const lines =
    m.entries.length === 0 ? [r.recallNone] : [r.recallMatches(m.entries.length, m.total, m.truncated), ...m.entries.map(entryLine)]
  if (!history) return [{ type: 'text', text: lines.join('\n') }]
  lines.push('')
  const h = value.history
  if (!h.available) lines.push(h.error ? r.historyFailed(h.error) : r.historyUnavailable)
  else if (h.sessions.length === 0) lines.push(r.historyNone)
  // a snippet is one line, whatever breaks it holds (a \r too), so it cannot pose as a memory line
  else
    for (const s of h.sessions)
      lines.push(
        r.historySession(s.sessionId, s.matches),
        ...s.snippets.map(
          (t) =>
            `    ${native
              .visibleLines(t)
              .map((l) => l.trim())
              .join(' ')}`,
        ),
      )
  return [{ type: 'text', text: lines.join('\n') }]
}

const NO_RECALL = { ok: false, memory: { entries: [], total: 0, truncated: false }, history: { available: false, sessions: [] } }

export function makeRecallTool({ service, config, getSessionQuery }) {
  const language = config.language
  return defineTool({
    name: 'memory_recall',
    description: strings(language).recallDescription,
    parameters: recallParameters(language, config),
    schema: RECALL_OUTPUT_SCHEMA,
    render: (value) => renderRecallResult(value, language),
    invalid: (_args, error) => ({ ...NO_RECALL, error }),
    async run(args, exec) {
      const session = exec?.agent?.session
      const keys = service.keysOf(session)
      const memoryLimit =
        Number.isInteger(args.memoryLimit) && args.memoryLimit > 0
          ? args.memoryLimit
          : args.memoryLimit === undefined
            ? 10
            : config.maxEntriesPerQuery
      const historyLimit =
        Number.isInteger(args.historyLimit) && args.historyLimit > 0 ? args.historyLimit : config.recall.historyLimitDefault
      let memory
      try {
        const r = service.query({ text: args.query, limit: memoryLimit }, visibleTo(keys))
        memory = { entries: r.entries.map(publicEntry), total: r.total, truncated: r.truncated }
      } catch (e) {
        if (isMemoryError(e)) return { ...NO_RECALL, error: { code: e.code, message: e.message } }
        throw e
      }
      const history = await recallHistory(getSessionQuery(), {
        query: args.query,
        cwd: session?.header?.cwd,
        historyLimit,
        config,
        signal: exec?.signal,
      })
      return { ok: true, memory, history }
    },
  })
}
