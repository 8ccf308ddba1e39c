// The `/memory` command (§7.7): its syntax over the shared verbs (lib/commands). A subcommand
// typed by the user is the user's own consent: writes use the command transport (refused only
// by policy `off` or a session `never` policy, audited with their own label). The user's
// whitespace inside texts, JSON and paths is kept (B12): only the separators around flags and
// the verb are dropped.
import { strings } from '../strings.mjs'
import { isMemoryError } from '../errors.mjs'
import { native } from '../native.mjs'
import { errorHelp, isVerb, renderVerb, runVerb, SCOPES, seqArg, staleDaysFlag, TRACKS, usageFor, UsageError } from '../commands/index.mjs'

const SURFACE = '/memory'

/** `{verb, rest}`; `rest` keeps everything after the verb verbatim. */
function splitVerb(rawInput) {
  const m = /^\s*(\S+)([\s\S]*)$/.exec(String(rawInput ?? ''))
  return m ? { verb: m[1], rest: m[2] } : { verb: '', rest: '' }
}

const layerFlag = (name, value) => (name === 'track' && TRACKS.includes(value)) || (name === 'scope' && SCOPES.includes(value))
const exportFlag = (name, value) => name === 'adapter' || layerFlag(name, value)
const doctorFlag = (name, value) => name === 'stale-days' && value !== undefined
const importFlag = (name, value) => ((name === 'dry-run' || name === 'skip-flagged') && value === undefined) || exportFlag(name, value)

/**
 * Pull flags (`--name=value` tokens accepted by `accept`) out of `rest` anywhere; the other
 * tokens keep the whitespace between them. Returns `{flags, text}`.
 */
function takeFlags(rest, accept = layerFlag) {
  const flags = {}
  let text = ''
  for (const [, ws, tok] of rest.matchAll(/(\s*)(\S+)/g)) {
    const m = /^--([a-z]+(?:-[a-z]+)?)(?:=([\s\S]*))?$/.exec(tok)
    if (m && accept(m[1], m[2])) {
      flags[m[1]] = m[2] ?? ''
      continue
    }
    text += (text === '' ? '' : ws) + tok
  }
  return { flags, text }
}

/** `<left> => <right>`: the substrings left of `=>` (tokens or "double-quoted phrases"), layer flags anywhere on the left. */
function arrowArgs(rest) {
  const m = /\s=>(?:\s|$)/.exec(rest)
  if (!m) return null
  const { flags, text: left } = takeFlags(rest.slice(0, m.index))
  const matches = [...left.matchAll(/"([^"]*)"|(\S+)/g)].map(([, quoted, tok]) => tok ?? quoted).filter((x) => x !== '')
  return { ...flags, left: left.trim(), matches, text: rest.slice(m.index + m[0].length).trim() }
}

/** The verb and its arguments for one `/memory` line. */
function parse(verb, rest, config) {
  const { flags, text } = takeFlags(rest, { import: importFlag, export: exportFlag, doctor: doctorFlag }[verb] ?? layerFlag)
  switch (verb) {
    case '':
      return ['list', { limit: config.commandListLimit }]
    case 'list':
      return ['list', { ...flags, limit: config.commandListLimit }]
    case 'query':
      return ['query', { ...flags, text: text.trim(), limit: config.commandListLimit }]
    case 'audit':
      return ['audit', { verify: text.trim() === 'verify', limit: config.commandAuditLimit }]
    case 'add':
      return ['add', { ...flags, text, source: 'command' }]
    case 'remove':
      return ['remove', { ...flags, match: text, source: 'command' }]
    case 'replace': {
      const a = arrowArgs(rest)
      return ['replace', a ? { ...a, match: a.left, source: 'command' } : {}]
    }
    case 'consolidate': {
      const a = arrowArgs(rest)
      return ['consolidate', a ? { ...a, source: 'command' } : {}]
    }
    case 'history':
      return ['history', { ...flags, target: text.trim() }]
    case 'undo': {
      // Typed, the undo is the user's consent with no approval card: its result shows the whole change.
      const seq = text.trim()
      return ['undo', /\s/.test(seq) ? null : { seq: seqArg(seq), showChange: true }]
    }
    case 'sessions': {
      const id = text.trim()
      return ['sessions', /\s/.test(id) ? null : { sessionId: id || undefined, limit: config.commandListLimit }]
    }
    case 'proposals': {
      const { verb: sub, rest: idRest } = splitVerb(rest)
      const id = idRest.trim()
      if (sub === '') return ['proposals', { limit: 50 }]
      return (sub === 'approve' || sub === 'dismiss') && id !== '' ? [sub, { id }] : ['proposals', null]
    }
    case 'export':
      return ['export', text === '' ? flags : null]
    case 'doctor': {
      const [sub, id, ...more] = text.split(/\s+/).filter(Boolean)
      const staleDays = staleDaysFlag(flags['stale-days']) ?? config.health.staleDays
      if (sub === undefined) return ['doctor', { staleDays }]
      return sub === 'fix' && id && !more.length ? ['doctor', { staleDays, fix: id }] : ['doctor', null]
    }
    case 'import': {
      const { 'dry-run': dry, 'skip-flagged': skip, ...rest } = flags
      // Typed, the import is the user's consent with no approval card: its result shows the whole change.
      return [
        'import',
        {
          ...rest,
          dryRun: dry !== undefined,
          skipFlagged: skip !== undefined,
          showChange: true,
          sources: text.trim() === '' ? [] : [text.trim()],
        },
      ]
    }
    case 'budgets':
    case 'adapters':
      return [verb, {}]
    default:
      return [null]
  }
}

/**
 * @param deps.provider   the provider (internal; command writes need the command transport)
 * @param deps.service    ctx.memory (keys)
 * @param deps.commandWrite (agent, signal) → write context bound to the command transport
 * @param deps.registry   ctx.memoryAdapters
 * @param deps.similarOf  (write) → the stored entries its approval named as alike
 * @param deps.shownOf  (write) → the change as its approval showed it
 */
export function makeMemoryCommand({ provider, service, config, commandWrite, registry, similarOf, shownOf }) {
  const t = strings(config.language).cmd
  const own = t[SURFACE]
  const usage = usageFor(t, SURFACE)

  async function run({ rawInput, agent, signal }) {
    const { verb: typed, rest } = splitVerb(rawInput)
    const [verb, args] = parse(typed, rest, config)
    if (!isVerb(verb)) return { kind: 'error', text: t.unknown(typed, own.usage) }
    if (args === null) throw usage(verb)
    const keys = service.keysOf(agent?.session)
    const env = { provider, registry, usage, keys, t, own, similarOf, shownOf, write: () => commandWrite(agent, signal) }
    if (verb === 'budgets') args.workspaceKey = keys.workspaceKey
    if (verb === 'doctor') args.visible = keys
    const result = await runVerb(verb, env, args)
    const text = renderVerb(verb, result, args, t, SURFACE)
    const warnings = (result?.warnings ?? []).map(t.warning)
    const broken = verb === 'audit' && result.verify?.ok === false
    return { kind: broken ? 'error' : 'success', text: [text, ...warnings].join('\n') }
  }

  return {
    name: 'memory',
    description: own.description,
    input: { hint: own.hint },
    async handler(invocation) {
      // What the terminal shows holds no control or invisible character to obey (a file being
      // imported, or a message quoting it, may): each is written as an escape.
      const visible = ({ kind, text }) => ({ kind, text: native.visibleLines(text).join('\n') })
      try {
        return visible(await run(invocation))
      } catch (e) {
        if (e instanceof UsageError) return visible({ kind: 'error', text: e.message })
        if (isMemoryError(e))
          return visible({ kind: 'error', text: [t.memoryError(e.code, e.message), ...errorHelp(e, t, SURFACE)].join('\n') })
        if (invocation?.signal?.aborted) throw e
        return visible({ kind: 'error', text: t.failed(e?.message ?? String(e)) })
      }
    },
  }
}
