// The `/memory` command (§7.7). A subcommand typed by the user is the user's own consent:
// writes use the command transport (refused only by policy `off` or a session `never`
// policy, audited with their own label). The user's whitespace inside texts, JSON and paths
// is kept (B12): only the separators around flags and the verb are dropped.
import { readFile } from 'node:fs/promises'
import { strings } from './strings.mjs'
import { buildExport, readEnvelopes, renderExport, validateEntryInputs } from '../envelope.mjs'
import { isMemoryErrorLike } from './tools.mjs'

const TRACKS = ['user', 'agent']
const SCOPES = ['user-global', 'workspace']
const ADAPTER_ID = /^[a-z0-9][a-z0-9-]*$/

/** `{verb, rest}`; `rest` keeps everything after the verb verbatim. */
export function splitVerb(rawInput) {
  const m = /^\s*(\S+)([\s\S]*)$/.exec(String(rawInput ?? ''))
  return m ? { verb: m[1], rest: m[2] } : { verb: '', rest: '' }
}

/**
 * Pull flags (`--name=value` tokens accepted by `accept`) out of `rest` anywhere; the other
 * tokens keep the whitespace between them. Returns `{flags, text, seen}`.
 */
export function takeFlags(rest, accept) {
  const flags = {}
  const seen = new Set()
  let text = ''
  for (const [, ws, tok] of rest.matchAll(/(\s*)(\S+)/g)) {
    const m = /^--([a-z]+)(?:=([\s\S]*))?$/.exec(tok)
    if (m && accept(m[1], m[2], seen)) {
      flags[m[1]] = m[2]
      continue
    }
    text += (text === '' ? '' : ws) + tok
  }
  return { flags, text, seen }
}

const layerFlag = (name, value) => (name === 'track' && TRACKS.includes(value)) || (name === 'scope' && SCOPES.includes(value))

function adapterFlag(name, value, seen) {
  if (name !== 'adapter') return false
  seen.add('adapter')
  return true
}

/** Substrings left of `=>`: whitespace tokens or "double-quoted phrases", plus layer flags. */
export function consolidateArgs(rest) {
  const m = /\s=>(?:\s|$)/.exec(rest)
  if (!m) return null
  const left = rest.slice(0, m.index)
  const right = rest.slice(m.index + m[0].length).trim()
  const flags = {}
  const matches = []
  for (const [, quoted, tok] of left.matchAll(/"([^"]*)"|(\S+)/g)) {
    if (tok !== undefined) {
      const f = /^--([a-z]+)=(.*)$/.exec(tok)
      if (f && layerFlag(f[1], f[2])) {
        flags[f[1]] = f[2]
        continue
      }
      matches.push(tok)
    } else if (quoted.length > 0) matches.push(quoted)
  }
  return { flags, matches, text: right }
}

export function entryLine(e) {
  return `- [${e.track}/${e.scope}${e.scope === 'workspace' ? ` @${e.workspaceKey}` : ''}${e.agentKey ? ` #${e.agentKey}` : ''}] ${e.text}`
}

const cut = (text, n) => (text.length > n ? `${text.slice(0, n)}…` : text)

/**
 * @param deps.provider   the provider (internal; command writes need the command transport)
 * @param deps.service    ctx.memory (reads, keys)
 * @param deps.commandWrite (agent, signal) → write context bound to the command transport
 * @param deps.getRegistry () → ctx.memoryAdapters
 */
export function makeMemoryCommand({ provider, service, config, commandWrite, getRegistry, isMemoryError = isMemoryErrorLike, readText = (p) => readFile(p, 'utf8') }) {
  const s = strings(config.language).cmd
  const ok = (text) => ({ kind: 'success', text })
  const err = (text) => ({ kind: 'error', text })
  /** An import file's text, or the error result saying why it cannot be read. */
  const importFile = async (arg) => {
    try {
      return { text: await readText(arg) }
    } catch (e) {
      return { failure: err(`import: cannot read ${JSON.stringify(arg)}: ${e.message}`) }
    }
  }

  async function run({ rawInput, agent, signal }) {
    const { verb, rest } = splitVerb(rawInput)
    const session = agent?.session
    const keys = service.keysOf(session)
    const write = () => commandWrite(agent, signal)
    const layerOf = (flags) => ({ track: flags.track ?? 'user', scope: flags.scope ?? 'workspace' })
    switch (verb) {
      case '':
      case 'list': {
        const r = service.query({ limit: config.commandListLimit }, { countRecall: false })
        if (r.total === 0) return ok(s.empty)
        return ok([r.truncated ? s.entriesPartial(r.total, r.entries.length) : s.entries(r.total), ...r.entries.map(entryLine)].join('\n'))
      }
      case 'query': {
        const q = rest.trim()
        if (q === '') return err(s.queryUsage)
        const r = service.query({ text: q, limit: config.commandListLimit }, { countRecall: false })
        if (r.total === 0) return ok(s.noMatch(q))
        return ok([r.truncated ? s.matchesPartial(r.total, r.entries.length) : s.matches(r.total), ...r.entries.map(entryLine)].join('\n'))
      }
      case 'budgets': {
        const rows = service.budgets({ workspaceKey: keys.workspaceKey })
        return ok([s.budgets, ...rows.map((b) => `- ${b.track}/${b.scope}: ${b.used}/${b.limit}`)].join('\n'))
      }
      case 'audit': {
        if (rest.trim() === 'verify') {
          const v = service.auditVerify()
          if (!v) return err('audit verify: this store keeps no audit hash chain')
          return v.ok ? ok(s.auditVerified(v.checked, v.head)) : err(s.auditBroken(v.firstBroken.seq, v.firstBroken.reason, v.checked))
        }
        const rows = service.auditList(config.commandAuditLimit)
        if (rows.length === 0) return ok(s.auditEmpty)
        const line = (r) => `- ${new Date(r.ts).toISOString()} ${r.action}${r.track ? ` ${r.track}/${r.scope}` : ''} ${r.outcome ?? ''} (${r.source ?? ''})`.trim()
        return ok([s.audit(rows.length), ...rows.map(line)].join('\n'))
      }
      case 'add': {
        const { flags, text } = takeFlags(rest, layerFlag)
        if (text === '') return err(s.addUsage)
        const r = await provider.add({ ...layerOf(flags), text, source: 'command' }, write())
        return ok(s.added(r.entry.track, r.entry.scope, r.entry.text, r.usage.used, r.usage.limit))
      }
      case 'remove': {
        const { flags, text } = takeFlags(rest, layerFlag)
        if (text === '') return err(s.removeUsage)
        const r = await provider.remove({ ...layerOf(flags), match: text }, write())
        return ok(s.removed(r.entry.track, r.entry.scope, r.entry.text, r.usage.used, r.usage.limit))
      }
      case 'consolidate': {
        const parsed = consolidateArgs(rest)
        if (!parsed) return err(s.consolidateUsage)
        if (parsed.matches.length === 0 || parsed.matches.length > 20) return err(s.consolidateCount)
        if (parsed.text === '') return err(s.consolidateText)
        const r = await provider.consolidate({ ...layerOf(parsed.flags), matches: parsed.matches, text: parsed.text, source: 'command' }, write())
        return ok(s.consolidated(r.entry.track, r.entry.scope, r.removed.length, r.entry.text, r.usage.used, r.usage.limit))
      }
      case 'proposals': {
        const { verb: sub, rest: idRest } = splitVerb(rest)
        if (sub === '') {
          const list = provider.proposalList('pending', 50)
          if (list.length === 0) return ok(s.noProposals)
          return ok([s.proposals(list.length), ...list.map((p) => `- [${p.id}] ${p.track}/${p.scope}: ${cut(p.text, 120)}`), s.proposalsFooter].join('\n'))
        }
        const id = idRest.trim()
        if ((sub !== 'approve' && sub !== 'dismiss') || id === '') return err(s.proposalsUsage)
        if (sub === 'dismiss') {
          await provider.proposalDecide(id, 'dismissed', write())
          return ok(s.dismissed(id))
        }
        // B3: the decision and the gated add commit together in the provider.
        const r = await provider.proposalDecide(id, 'approved', write())
        const e = r.entry ?? r.proposal
        return ok(s.approved(e.track, e.scope, e.text, r.usage?.used ?? 0, r.usage?.limit ?? 0))
      }
      case 'adapters': {
        const registry = getRegistry()
        if (!registry) return err('memory adapter registry is unavailable in this profile')
        const list = registry.list()
        if (list.length === 0) return ok(s.noAdapters)
        const lines = list.map((a) => `- ${a.id} (${a.name}, v${a.version}): ${a.description}\n  import: ${a.importFormats.join(', ')}; export: ${a.exportFormat}`)
        return ok([s.adapters(list.length), ...lines, s.adaptersFooter].join('\n'))
      }
      case 'export': {
        const { flags, text, seen } = takeFlags(rest, adapterFlag)
        if (seen.has('adapter')) {
          const id = flags.adapter
          if (!id || !ADAPTER_ID.test(id)) return err('adapter id missing or invalid: use --adapter=<id> (lowercase kebab-case)')
          if (text !== '') return err(s.exportUsage)
          const registry = getRegistry()
          if (!registry) return err('memory adapter registry is unavailable in this profile')
          const v = await registry.export(id, service.listEntries())
          return ok(typeof v === 'string' ? v : JSON.stringify(v, null, 2))
        }
        if (text !== '') return err(s.exportUsage)
        return ok(renderExport(buildExport({ entries: service.listEntries(), budgets: service.budgets() })).trimEnd())
      }
      case 'import': {
        const { flags, text, seen } = takeFlags(rest, adapterFlag)
        const arg = text.trim()
        if (seen.has('adapter')) {
          const id = flags.adapter
          if (!id || !ADAPTER_ID.test(id)) return err('adapter id missing or invalid: use --adapter=<id> (lowercase kebab-case)')
          const registry = getRegistry()
          if (!registry) return err('memory adapter registry is unavailable in this profile')
          if (arg === '') return err('adapter import usage: /memory import --adapter=<id> <file path> (or inline JSON starting with {)')
          let payload
          if (arg.startsWith('{') || arg.startsWith('[')) {
            payload = arg // adapters parse text themselves, so their errors carry line numbers
          } else {
            const file = await importFile(arg)
            if (file.failure) return file.failure
            payload = file.text
          }
          let adapted
          try {
            adapted = await registry.adapt(id, payload)
          } catch (e) {
            if (e?.code === 'ADAPTER_NOT_FOUND') return err(`no memory adapter "${id}" is registered; run /memory adapters`)
            return err(`adapter ${id} rejected the payload: ${e?.message ?? e}`)
          }
          let inputs
          try {
            inputs = validateEntryInputs(adapted?.entries ?? [], { adapterId: id, locations: adapted?.locations })
          } catch (e) {
            return err(e.message)
          }
          if (inputs.length === 0) return err('import: the payload contains no entries')
          const r = await provider.seed(inputs, write())
          return ok(s.importedVia(r.added, id))
        }
        if (arg === '') return err('import restores entries from an export document (a file path, or inline JSON starting with {): /memory import <path> | /memory import \'{"plugin":"dsh-memento",...}\'')
        let doc
        if (arg.startsWith('{')) {
          try {
            doc = JSON.parse(arg)
          } catch {
            return err('import: inline JSON could not be parsed')
          }
        } else {
          const file = await importFile(arg)
          if (file.failure) return file.failure
          try {
            doc = JSON.parse(file.text)
          } catch (e) {
            // B13: a file that reads but does not parse is a JSON error, not a read error.
            return err(`import: ${JSON.stringify(arg)} is not valid JSON: ${e.message}`)
          }
        }
        let inputs
        try {
          inputs = readEnvelopes([doc]).inputs
        } catch (e) {
          return err(e.message) // the reference's plain `import: …` messages
        }
        const r = await provider.seed(inputs, write())
        return ok(s.imported(r.added))
      }
      default:
        return err(s.unknown(verb, s.usage))
    }
  }

  return {
    name: 'memory',
    description: s.description,
    input: { hint: s.hint },
    async handler(invocation) {
      try {
        return await run(invocation)
      } catch (e) {
        if (isMemoryError(e)) return err(s.memoryError(e.code, e.message))
        if (invocation?.signal?.aborted) throw e
        return err(s.failed(e?.message ?? String(e)))
      }
    },
  }
}
