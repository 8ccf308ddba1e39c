#!/usr/bin/env node
// dsh-memento: manage a dsh-memento store from a terminal (Node >= 20, no harness needed).
// Every write goes through the provider's approval gate: the full change is shown and asked at
// the terminal unless --yes; with no terminal and no --yes the write is refused (WRITE_DENIED)
// and the refusal is audited like any other denial.

import { randomUUID } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import readline from 'node:readline'
import { fileURLToPath } from 'node:url'
import { createDefaultRegistry } from '../lib/adapters/index.mjs'
import { findSessionLogs, recordProposals, scanFile, toProposals } from '../lib/digest.mjs'
import { exportEntry, exportStore, importEntries, readEnvelopes, parseImportText, renderExport, validateEntryInputs } from '../lib/envelope.mjs'
import { isMemoryError, memoryError } from '../lib/errors.mjs'
import { mirrorToMarkdownFile, mirrorToMemoryStandard, selectScope } from '../lib/mirror.mjs'

const USAGE = `Usage: dsh-memento <command> [options]

Read commands (add --json for machine output):
  list [--track T] [--scope S] [--limit N]     every entry (all agents and workspaces), oldest first
  query <text> [--track T] [--scope S] [--limit N]
  budgets                                      used/limit per track x scope
  audit [--limit N] [--verify]                 newest first
  proposals                                    pending proposals
  adapters                                     registered import/export adapters
  export [--out FILE | --out-dir DIR] [--part-size N]
  export --adapter ID [--track T] [--scope S] [--out FILE|DIR]

Write commands (each asks for approval showing the full change, unless --yes):
  add [--track user|agent] [--scope user-global|workspace] [--tags a,b] <text>
  remove [--track T] [--scope S] <substring>
  replace [--track T] [--scope S] [--tags a,b] <substring> <new text>     (or --text <new text>)
  consolidate [--track T] [--scope S] <sub1> [<sub2> ...] --text <new text>   (or: sub1 sub2 => new text)
  import <file|dir|-|inline JSON> [more files] [--skip-existing] [--dry-run]
  import --adapter ID <file|dir> [--track T] [--scope S] [--dry-run] [--follow-imports]
                                    (--follow-imports: read CLAUDE.md @imports, 5 hops deep)
  proposals approve <id> | proposals dismiss <id>
  digest <file...> | digest --sessions [--max-sessions N]   (records proposals, never entries; --dry-run)
  mirror --to claude-md --file <CLAUDE.md|AGENTS.md> [--track T] [--scope S]
  mirror --to memory-standard --out <dir> [--track T] [--scope S] [--force]

Options:
  --db PATH          store file (default $DSH_HOME/dsh-memento/memory.db; $DSH_HOME defaults to ~/.dsh)
  --budgets JSON     layer limits when your plugin config changed them, e.g. '{"user":{"workspace":4000}}'
                     (also $DSH_MEMENTO_BUDGETS; default 2000/2000 user, 4000/4000 agent)
  --secret-policy P  refuse (default) or warn: credential-looking text is refused, or shown as a warning
  --agent PRESET     act as this agent preset (default: the shared layer)
  --workspace DIR    workspace (cwd) for workspace-scope entries (default: the current directory)
  --yes, -y          approve writes without asking (audited as "allowed-once (via cli --yes)")
  --json             JSON output
  -h, --help         this help`

const VALUE_FLAGS = new Set(['db', 'budgets', 'secret-policy', 'track', 'scope', 'limit', 'tags', 'source', 'agent', 'workspace', 'adapter', 'out', 'out-dir', 'part-size', 'text', 'to', 'file', 'max-sessions', 'memory-id', 'events'])
const BOOL_FLAGS = new Set(['json', 'yes', 'help', 'verify', 'skip-existing', 'dry-run', 'force', 'sessions', 'follow-imports'])
const SHORT = { y: 'yes', h: 'help' }

class UsageError extends Error {}

function parseArgs(argv) {
  const flags = {}
  const pos = []
  let rest = false
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    if (rest || a === '-' || !a.startsWith('-') || /^-\d/.test(a)) { pos.push(a); continue }
    if (a === '--') { rest = true; continue }
    let name
    let value
    if (a.startsWith('--')) {
      const eq = a.indexOf('=')
      name = eq > 0 ? a.slice(2, eq) : a.slice(2)
      value = eq > 0 ? a.slice(eq + 1) : undefined
    } else {
      name = SHORT[a.slice(1)]
      if (!name) throw new UsageError(`unknown option ${a}`)
    }
    if (BOOL_FLAGS.has(name)) {
      if (value !== undefined) throw new UsageError(`--${name} takes no value`)
      flags[name] = true
    } else if (VALUE_FLAGS.has(name)) {
      if (value === undefined) {
        if (i + 1 >= argv.length) throw new UsageError(`--${name} needs a value`)
        value = argv[++i]
      }
      flags[name] = value
    } else throw new UsageError(`unknown option --${name}`)
  }
  return { cmd: pos[0], args: pos.slice(1), flags }
}

// A closed pipe (`dsh-memento list | head`) is not an error.
process.stdout.on('error', (e) => { if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0); else throw e })

const out = (s) => process.stdout.write(s.endsWith('\n') ? s : `${s}\n`)
const err = (s) => process.stderr.write(s.endsWith('\n') ? s : `${s}\n`)
/** Entries in the protocol's key order (the native layer may emit keys alphabetically). */
function ordered(v) {
  if (Array.isArray(v)) return v.map(ordered)
  if (v && typeof v === 'object') {
    if ('id' in v && 'track' in v && 'text' in v && 'recallCount' in v) return exportEntry(v)
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, ordered(x)]))
  }
  return v
}
const json = (v) => out(JSON.stringify(ordered(v), null, 2))
const indent = (text) => text.replace(/\n/g, '\n  ')

function entryLine(e) {
  const where = `${e.track}/${e.scope}${e.scope === 'workspace' && e.workspaceKey ? ` @${e.workspaceKey}` : ''}${e.agentKey ? ` #${e.agentKey}` : ''}`
  const tags = e.tags?.length ? `  (tags: ${e.tags.join(', ')})` : ''
  return `- [${where}] ${indent(e.text)}${tags}`
}

function layerFlags(flags, dflt) {
  const track = flags.track ?? dflt?.track
  const scope = flags.scope ?? dflt?.scope
  if (track !== undefined && !['user', 'agent'].includes(track)) throw new UsageError(`--track must be user or agent, got ${JSON.stringify(track)}`)
  if (scope !== undefined && !['user-global', 'workspace'].includes(scope)) throw new UsageError(`--scope must be user-global or workspace, got ${JSON.stringify(scope)}`)
  return { track, scope }
}

function limitFlag(flags, dflt) {
  if (flags.limit === undefined) return dflt
  const n = Number(flags.limit)
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`--limit must be a positive integer, got ${JSON.stringify(flags.limit)}`)
  return n
}

const tagsFlag = (flags) => (flags.tags === undefined ? undefined : flags.tags.split(',').map((t) => t.trim()).filter(Boolean))

// ---- provider loading -------------------------------------------------------------------------

async function loadModule() {
  const spec = new URL('../index.mjs', import.meta.url).href
  try {
    return await import(spec)
  } catch (e) {
    // The loader's own error names the platform and what to do.
    if (e?.code === 'NATIVE_BINDING_MISSING') throw e
    throw new Error(`cannot load the dsh-memento provider (${fileURLToPath(spec)}): ${e.message}`)
  }
}

function dbPathOf(flags) {
  return flags.db === undefined ? '' : path.resolve(flags.db)
}

/** Interactive approval: prints the gate payload (the full change) and asks y/N on the terminal. */
function makeGate(flags) {
  const interactive = Boolean(process.stdin.isTTY) && !flags.yes
  let rl = null
  // Resolves the typed answer, or null when the user pressed Ctrl-C or closed the input (Ctrl-D).
  const ask = (q) => new Promise((resolve) => {
    rl ??= readline.createInterface({ input: process.stdin, output: process.stderr, terminal: true })
    const cancel = () => { err(''); resolve(null) }
    rl.once('SIGINT', cancel)
    rl.once('close', cancel)
    rl.question(q, (answer) => {
      rl.off('SIGINT', cancel)
      rl.off('close', cancel)
      resolve(answer)
    })
  })
  const gate = async (payload) => {
    const warnings = Array.isArray(payload.warnings) ? payload.warnings : []
    if (flags.yes) {
      for (const w of warnings) err(`dsh-memento: warning (${payload.action}): ${w}`)
      return 'allowed-once'
    }
    if (!interactive) {
      err('dsh-memento: no terminal to ask for approval on; pass --yes to approve this write non-interactively')
      return 'unavailable'
    }
    const layer = payload.track === 'batch' ? `batch of ${payload.count} entries` : `${payload.track}/${payload.scope}`
    err(`\nApprove memory write: ${payload.action} (${layer})${payload.source ? ` source ${payload.source}` : ''}\n${'-'.repeat(60)}\n${payload.text}\n${'-'.repeat(60)}`)
    for (const w of warnings) err(`warning: ${w}`)
    const answer = await ask('Approve? [y/N] ')
    if (answer === null) return 'cancelled'
    return /^\s*y(es)?\s*$/i.test(answer) ? 'allowed-once' : 'rejected'
  }
  const auditLabel = (outcome) => `${outcome} (via cli ${flags.yes ? '--yes' : interactive ? 'prompt' : 'no-tty'})`
  const close = () => rl?.close()
  return { gate, auditLabel, close }
}

async function openProvider(flags, { write = false } = {}) {
  const mod = await loadModule()
  const dbPath = dbPathOf(flags)
  const resolved = mod.resolveDbPath(dbPath, process.env)
  const g = makeGate(flags)
  if (!write && !fs.existsSync(resolved)) return { provider: null, resolved, close: () => {}, mod }
  const options = { dbPath: resolved, gate: g.gate, auditLabel: g.auditLabel }
  const budgets = budgetsFlag(flags)
  if (budgets) options.budgets = budgets
  if (flags['secret-policy'] !== undefined) {
    if (!['refuse', 'warn'].includes(flags['secret-policy'])) throw new UsageError('--secret-policy must be refuse or warn')
    options.secretPolicy = flags['secret-policy']
  }
  const provider = new mod.MemoryProvider(options)
  return { provider, resolved, mod, close: () => { g.close(); provider.close() } }
}

function budgetsFlag(flags) {
  const raw = flags.budgets ?? process.env.DSH_MEMENTO_BUDGETS
  if (raw === undefined || raw === '') return undefined
  let v
  try { v = JSON.parse(raw) } catch { throw new UsageError(`--budgets must be JSON like '{"user":{"userGlobal":2000,"workspace":2000}}'`) }
  if (!v || typeof v !== 'object') throw new UsageError('--budgets must be a JSON object')
  return v
}

function writeContext(flags) {
  const header = { cwd: path.resolve(flags.workspace ?? process.cwd()) }
  if (flags.agent !== undefined) header.agentPreset = flags.agent
  return { agent: { session: { id: `cli:${randomUUID()}`, header } } }
}

/** Keys a write defaults to (mirrors the provider's derivation for --skip-existing and mirror). */
function sessionKeys(flags, mod) {
  const cwd = path.resolve(flags.workspace ?? process.cwd())
  return {
    workspaceKey: typeof mod?.workspaceKeyOf === 'function' ? mod.workspaceKeyOf(cwd) : cwd,
    agentKey: typeof mod?.agentKeyOf === 'function' ? mod.agentKeyOf(flags.agent ?? '') : (flags.agent ?? '').trim(),
  }
}

// ---- commands ---------------------------------------------------------------------------------

const EMPTY_BUDGETS = (mod, flags = {}) => {
  const over = budgetsFlag(flags) ?? {}
  const b = { user: { ...mod.DEFAULT_BUDGETS.user, ...over.user }, agent: { ...mod.DEFAULT_BUDGETS.agent, ...over.agent } }
  return [['user', 'user-global'], ['user', 'workspace'], ['agent', 'user-global'], ['agent', 'workspace']].map(([track, scope]) => ({ track, scope, used: 0, limit: b[track][scope === 'user-global' ? 'userGlobal' : 'workspace'] }))
}

async function cmdList(args, flags) {
  if (args.length) throw new UsageError('list takes no arguments (use query <text> to search)')
  const { track, scope } = layerFlags(flags)
  const limit = limitFlag(flags, Infinity)
  const { provider, close } = await openProvider(flags)
  try {
    const all = provider ? provider.listEntries().filter((e) => (!track || e.track === track) && (!scope || e.scope === scope)) : []
    const shown = all.slice(0, limit)
    if (flags.json) return json({ entries: shown, total: all.length, truncated: shown.length < all.length })
    if (!all.length) return out('Memory is empty.')
    out(shown.length < all.length ? `Memory entries (${all.length} total, showing first ${shown.length}):` : `Memory entries (${all.length}):`)
    for (const e of shown) out(entryLine(e))
  } finally { close() }
}

async function cmdQuery(args, flags) {
  const text = args.join(' ').trim()
  if (!text) throw new UsageError('query needs a keyword: dsh-memento query <text>')
  const { track, scope } = layerFlags(flags)
  const limit = limitFlag(flags, 20)
  const { provider, close } = await openProvider(flags)
  try {
    const res = provider ? provider.query({ text, track, scope, limit }, { countRecall: false }) : { entries: [], total: 0, truncated: false }
    if (flags.json) return json(res)
    if (!res.total) return out(`No entry contains ${JSON.stringify(text)}.`)
    out(res.truncated ? `Matches (${res.total} total, showing first ${res.entries.length}):` : `Matches (${res.total}):`)
    for (const e of res.entries) out(entryLine(e))
  } finally { close() }
}

async function cmdBudgets(args, flags) {
  const { provider, close, mod } = await openProvider(flags)
  try {
    const rows = provider ? provider.budgets() : EMPTY_BUDGETS(mod, flags)
    if (flags.json) return json(rows)
    out('Budget usage:')
    for (const r of rows) out(`- ${r.track}/${r.scope}: ${r.used}/${r.limit}`)
  } finally { close() }
}

async function cmdAudit(args, flags) {
  const limit = limitFlag(flags, 50)
  const { provider, close } = await openProvider(flags)
  try {
    if (flags.verify) {
      if (!provider || typeof provider.auditVerify !== 'function') {
        if (flags.json) json({ supported: false, message: 'audit verification is not supported yet' })
        else out('audit --verify: not supported yet (this provider has no auditVerify)')
        process.exitCode = 1
        return
      }
      const res = provider.auditVerify()
      if (res && res.ok === false) process.exitCode = 1
      if (flags.json) return json(res)
      if (res && typeof res.ok === 'boolean') {
        return out(res.ok
          ? `Audit chain verified: ${res.checked} rows${res.head ? `, head ${res.head}` : ''}.`
          : `Audit chain BROKEN at seq ${res.firstBroken?.seq}: ${res.firstBroken?.reason} (${res.checked} rows checked).`)
      }
      return out(JSON.stringify(res, null, 2))
    }
    const rows = provider ? provider.auditList(limit) : []
    if (flags.json) return json(rows)
    if (!rows.length) return out('Audit is empty.')
    out(`Recent audit (${rows.length} rows):`)
    for (const r of rows) out(`- ${new Date(r.ts).toISOString()} ${r.action}${r.track ? ` ${r.track}/${r.scope}` : ''} ${r.outcome ?? ''} (${r.source ?? ''})`.trim())
  } finally { close() }
}

async function withWriter(flags, fn) {
  const ctx = await openProvider(flags, { write: true })
  try {
    return await fn(ctx.provider, writeContext(flags), ctx)
  } finally { ctx.close() }
}

async function cmdAdd(args, flags) {
  const text = flags.text ?? args.join(' ')
  if (!text.trim()) throw new UsageError('add needs text: dsh-memento add [--track user|agent] [--scope user-global|workspace] <text>')
  const { track, scope } = layerFlags(flags, { track: 'user', scope: 'workspace' })
  const input = { track, scope, text, source: flags.source ?? 'cli' }
  const tags = tagsFlag(flags)
  if (tags) input.tags = tags
  await withWriter(flags, async (p, w) => {
    const res = await p.add(input, w)
    if (flags.json) return json(res)
    out(`Added (${track}/${scope}): ${res.entry.text}\nLayer usage: ${res.usage.used}/${res.usage.limit}`)
  })
}

async function cmdRemove(args, flags) {
  const match = args.join(' ')
  if (!match.trim()) throw new UsageError('remove needs a unique substring: dsh-memento remove [--track T] [--scope S] <substring>')
  const { track, scope } = layerFlags(flags, { track: 'user', scope: 'workspace' })
  await withWriter(flags, async (p, w) => {
    const res = await p.remove({ track, scope, match }, w)
    if (flags.json) return json(res)
    out(`Removed (${track}/${scope}): ${res.entry.text}\nLayer usage: ${res.usage.used}/${res.usage.limit}`)
  })
}

function splitArrow(args) {
  const i = args.indexOf('=>')
  return i < 0 ? null : { left: args.slice(0, i), right: args.slice(i + 1).join(' ') }
}

async function cmdReplace(args, flags) {
  const arrow = splitArrow(args)
  const match = arrow ? arrow.left.join(' ') : args[0]
  const text = flags.text ?? (arrow ? arrow.right : args.slice(1).join(' '))
  if (!match || !text) throw new UsageError('replace usage: dsh-memento replace [--track T] [--scope S] <substring> <new text>  (or --text <new text>)')
  const { track, scope } = layerFlags(flags, { track: 'user', scope: 'workspace' })
  const input = { track, scope, match, text, source: flags.source ?? 'cli' }
  const tags = tagsFlag(flags)
  if (tags) input.tags = tags
  await withWriter(flags, async (p, w) => {
    const res = await p.replace(input, w)
    if (flags.json) return json(res)
    out(`Replaced (${track}/${scope}): ${res.previous.text}\n  -> ${res.entry.text}\nLayer usage: ${res.usage.used}/${res.usage.limit}`)
  })
}

async function cmdConsolidate(args, flags) {
  const arrow = splitArrow(args)
  const matches = arrow ? arrow.left : args
  const text = flags.text ?? arrow?.right
  if (!matches.length || matches.length > 20) throw new UsageError('consolidate needs 1..20 unique substrings: dsh-memento consolidate <sub1> [<sub2> ...] --text <new text>')
  if (!text) throw new UsageError('consolidate needs new text: --text <new text> (or: sub1 sub2 => new text)')
  const { track, scope } = layerFlags(flags, { track: 'user', scope: 'workspace' })
  const input = { track, scope, matches, text, source: flags.source ?? 'cli' }
  const tags = tagsFlag(flags)
  if (tags) input.tags = tags
  await withWriter(flags, async (p, w) => {
    const res = await p.consolidate(input, w)
    if (flags.json) return json(res)
    out(`Consolidated (${track}/${scope}): removed ${res.removed.length}, added 1.\nNew entry: ${res.entry.text}\nLayer usage: ${res.usage.used}/${res.usage.limit}`)
  })
}

async function cmdProposals(args, flags) {
  const [sub, id] = args
  if (sub === undefined) {
    const { provider, close } = await openProvider(flags)
    try {
      const rows = provider ? provider.proposalList('pending', 1000) : []
      if (flags.json) return json(rows)
      if (!rows.length) return out('No pending memory proposals.')
      out(`Pending proposals (${rows.length}):`)
      for (const p of rows) out(`- [${p.id}] ${p.track}/${p.scope}: ${indent(p.text)}  (${p.kind}, ${p.source})`)
      out('Approve: dsh-memento proposals approve <id>; dismiss: dsh-memento proposals dismiss <id>')
    } finally { close() }
    return
  }
  if (!['approve', 'dismiss'].includes(sub) || !id || args.length > 2) throw new UsageError('proposals usage: dsh-memento proposals | proposals approve <id> | proposals dismiss <id>')
  await withWriter(flags, async (p, w) => {
    const res = await p.proposalDecide(id, sub === 'approve' ? 'approved' : 'dismissed', w)
    if (flags.json) return json(res)
    if (sub === 'approve') out(`Proposal approved and written to memory (${res.entry.track}/${res.entry.scope}): ${res.entry.text}${res.usage ? `\nLayer usage: ${res.usage.used}/${res.usage.limit}` : ''}`)
    else out(`Proposal ${id} dismissed.`)
  })
}

async function cmdAdapters(args, flags) {
  const list = createDefaultRegistry().list()
  if (flags.json) return json(list)
  out(`Memory adapters (${list.length}):`)
  for (const a of list) out(`- ${a.id} (${a.name}, v${a.version}): ${a.description}\n  import: ${a.importFormats.join(', ')}; export: ${a.exportFormat}`)
  out('Import: dsh-memento import --adapter <id> <path>; export: dsh-memento export --adapter <id> [--out <path>]')
}

function writeFiles(dir, files, force) {
  if (fs.existsSync(dir) && fs.readdirSync(dir).length && !force) throw new UsageError(`${dir} is not empty; pass --force to write into it`)
  for (const [name, content] of Object.entries(files)) {
    const p = path.join(dir, name)
    fs.mkdirSync(path.dirname(p), { recursive: true })
    fs.writeFileSync(p, content)
  }
}

function reportWarnings(warnings) {
  for (const w of warnings ?? []) err(`warning: ${w.line ? `line ${w.line}: ` : ''}${w.message}`)
}

async function cmdExport(args, flags) {
  if (args.length) throw new UsageError('export takes no positional arguments (use --out FILE or --out-dir DIR)')
  const { provider, close, mod } = await openProvider(flags)
  try {
    if (flags.adapter) {
      const { track, scope } = layerFlags(flags)
      const entries = (provider ? provider.listEntries() : []).filter((e) => (!track || e.track === track) && (!scope || e.scope === scope))
      const opts = flags['memory-id'] ? { memoryId: flags['memory-id'] } : undefined
      const res = createDefaultRegistry().export(flags.adapter, entries, opts)
      reportWarnings(res?.warnings)
      if (res && typeof res === 'object' && res.files && !flags.json) {
        if (!flags.out) throw new UsageError(`adapter ${flags.adapter} writes several files (${Object.keys(res.files).join(', ')}): pass --out <dir>`)
        writeFiles(flags.out, res.files, flags.force)
        return err(`exported ${entries.length} entries via ${flags.adapter} into ${flags.out} (${Object.keys(res.files).length} files)`)
      }
      const text = typeof res === 'string' ? res : typeof res?.text === 'string' && !flags.json ? res.text : `${JSON.stringify(res, null, 2)}\n`
      if (flags.out) {
        fs.writeFileSync(flags.out, text)
        return err(`exported ${entries.length} entries via ${flags.adapter} to ${flags.out}`)
      }
      return process.stdout.write(text)
    }
    const partSize = flags['part-size'] === undefined ? undefined : Number(flags['part-size'])
    const envelopes = provider
      ? exportStore(provider, partSize === undefined ? {} : { partSize })
      : exportStore({ listEntries: () => [], budgets: () => EMPTY_BUDGETS(mod, flags) })
    const n = envelopes.reduce((k, e) => k + e.entries.length, 0)
    if (flags['out-dir']) {
      fs.mkdirSync(flags['out-dir'], { recursive: true })
      envelopes.forEach((env, i) => {
        const name = envelopes.length === 1 ? 'memory-export.json' : `memory-export.part-${String(i + 1).padStart(3, '0')}-of-${String(envelopes.length).padStart(3, '0')}.json`
        fs.writeFileSync(path.join(flags['out-dir'], name), `${JSON.stringify(env, null, 2)}\n`)
      })
      return err(`exported ${n} entries in ${envelopes.length} part(s) into ${flags['out-dir']}`)
    }
    if (flags.out) {
      fs.writeFileSync(flags.out, renderExport(envelopes))
      return err(`exported ${n} entries${envelopes.length > 1 ? ` as ${envelopes.length} parts (a JSON array of envelopes)` : ''} to ${flags.out}`)
    }
    process.stdout.write(renderExport(envelopes))
  } finally { close() }
}

function readSource(arg) {
  if (arg === '-') return { label: 'stdin', text: fs.readFileSync(0, 'utf8') }
  if (/^\s*[[{]/.test(arg)) return { label: 'inline JSON', text: arg }
  try {
    return { label: JSON.stringify(arg), text: fs.readFileSync(arg, 'utf8') }
  } catch (e) {
    throw memoryError('INVALID_INPUT', `import: cannot read ${JSON.stringify(arg)}: ${e.message}`)
  }
}

function readDirFiles(dir, filter) {
  const files = {}
  const walk = (rel) => {
    for (const d of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const r = rel ? `${rel}/${d.name}` : d.name
      if (d.isDirectory()) { if (!d.name.startsWith('.')) walk(r) } else if (filter(r)) files[r] = fs.readFileSync(path.join(dir, r), 'utf8')
    }
  }
  walk('')
  return files
}

/** Read an adapter payload from a path: memory-standard roots and Hermes dirs are file maps. */
function adapterPayloads(id, arg) {
  if (arg !== '-' && fs.existsSync(arg) && fs.statSync(arg).isDirectory()) {
    if (id === 'memory-standard') return [{ payload: { files: readDirFiles(arg, (r) => r.endsWith('.md')) }, file: arg }]
    // a Claude Code auto-memory directory (~/.claude/projects/<slug>/memory) has a MEMORY.md index
    const autoMemory = path.basename(path.resolve(arg)) === 'memory' ? ['MEMORY.md'] : []
    const names = id === 'hermes-memory-md' ? ['MEMORY.md', 'USER.md'] : id === 'claude-code-memory-md' ? ['CLAUDE.md', '.claude/CLAUDE.md', 'CLAUDE.local.md', 'AGENTS.md', ...autoMemory] : []
    const found = names.filter((n) => fs.existsSync(path.join(arg, n)))
    if (!found.length) throw new UsageError(`${arg} is a directory${names.length ? ` with none of ${names.join(', ')}` : `; adapter ${id} reads a file`}`)
    // CLAUDE.md is often a symlink to (or a copy of) AGENTS.md: import each file once
    const seen = []
    const link = (n) => fs.lstatSync(path.join(arg, n)).isSymbolicLink()
    return [...found.filter((n) => !link(n)), ...found.filter(link)].flatMap((n) => {
      const file = path.join(arg, n)
      const real = fs.realpathSync(file)
      const payload = fs.readFileSync(file, 'utf8')
      const same = id === 'claude-code-memory-md' && (seen.find((o) => o.real === real) ?? seen.find((o) => o.payload === payload))
      if (same) return [{ warning: { message: `${n} ${same.real === real ? 'is the same file as' : 'has the same content as'} ${same.n}; imported once` } }]
      seen.push({ n, real, payload })
      return [{ payload, file }]
    })
  }
  const { text } = readSource(arg)
  return [{ payload: text, file: arg === '-' ? undefined : arg }]
}

async function cmdImport(args, flags) {
  if (!args.length) throw new UsageError('import restores entries from an export document: dsh-memento import <file|dir|-|inline JSON> (or --adapter <id> <path>)')
  if (args.includes('-') && !flags.yes && !flags['dry-run']) throw new UsageError('import from stdin needs --yes (the terminal cannot both feed data and answer the approval)')
  const started = Date.now()
  let inputs
  let warnings = []
  let what
  if (flags.adapter) {
    if (args.length !== 1) throw new UsageError('import --adapter takes exactly one file or directory')
    const { track, scope } = layerFlags(flags)
    const registry = createDefaultRegistry()
    if (!registry.get(flags.adapter)) throw memoryError('ADAPTER_NOT_FOUND', `no memory adapter registered with id ${JSON.stringify(flags.adapter)}; run dsh-memento adapters for the list`, { adapterId: flags.adapter })
    inputs = []
    const follow = flags['follow-imports'] ? { followImports: true, readFile: (p) => fs.readFileSync(p), realpath: (p) => fs.realpathSync(p), visited: new Set() } : {}
    for (const { payload, file, warning } of adapterPayloads(flags.adapter, args[0])) {
      if (warning) { warnings.push(warning); continue }
      const opts = { file, ...(track ? { track } : {}), ...(scope ? { scope } : {}), ...follow }
      const res = registry.adapt(flags.adapter, payload, opts)
      inputs.push(...validateEntryInputs(res.entries, { adapterId: flags.adapter, locations: res.locations }))
      warnings.push(...res.warnings.map((w) => ({ ...w, message: file ? `${path.basename(file)}: ${w.message}` : w.message })))
    }
    if (!inputs.length) throw memoryError('ADAPTER_PAYLOAD', `adapter ${JSON.stringify(flags.adapter)}: the payload contains no entries${warnings.length ? ` (${warnings.map((w) => `${w.line ? `line ${w.line}: ` : ''}${w.message}`).join('; ')})` : ''}`, { adapterId: flags.adapter, warnings })
    what = `via adapter ${flags.adapter}`
  } else {
    const docs = []
    for (const a of args) {
      if (a !== '-' && fs.existsSync(a) && fs.statSync(a).isDirectory()) {
        const names = fs.readdirSync(a).filter((n) => n.endsWith('.json')).sort()
        if (!names.length) throw new UsageError(`${a} holds no .json export files`)
        for (const n of names) docs.push(parseImportText(fs.readFileSync(path.join(a, n), 'utf8'), JSON.stringify(path.join(a, n))))
      } else {
        const { label, text } = readSource(a)
        docs.push(parseImportText(text, label))
      }
    }
    const res = readEnvelopes(docs)
    inputs = res.inputs
    what = res.parts > 1 ? `from ${res.parts} parts` : 'from the export document'
  }
  reportWarnings(warnings)
  if (flags['dry-run']) {
    if (flags.json) return json({ dryRun: true, entries: inputs, warnings })
    out(`Would import ${inputs.length} entries ${what} (dry run; nothing was written):`)
    for (const x of inputs) out(entryLine({ workspaceKey: '', agentKey: '', ...x }))
    return
  }
  await withWriter(flags, async (p, w, ctx) => {
    const res = await importEntries(p, inputs, w, {
      skipExisting: Boolean(flags['skip-existing']),
      defaultKeys: sessionKeys(flags, ctx.mod),
      onProgress: ({ phase, total, added }) => {
        if (total < 200) return
        if (phase === 'asking') err(`import: ${total} entries validated; asking for one approval (${Date.now() - started} ms)`)
        else err(`import: ${added} entries written in one transaction (${Date.now() - started} ms)`)
      },
    })
    if (flags.json) return json({ added: res.added, skipped: res.skipped, ms: Date.now() - started, warnings })
    out(`Imported ${res.added} entries ${what} (one approval, one transaction; budgets checked).${res.skipped ? ` Skipped ${res.skipped} already present.` : ''} Entries get fresh ids and timestamps; tags, sources and keys are kept.`)
  })
}

async function cmdDigest(args, flags) {
  const files = [...args]
  if (flags.sessions) {
    // The same dsh home as the store's: $DSH_HOME, else ~/.dsh in os.homedir() (%USERPROFILE% on Windows).
    const home = path.resolve(process.env.DSH_HOME || path.join(os.homedir(), '.dsh'))
    files.push(...findSessionLogs(home, flags['max-sessions'] ? Number(flags['max-sessions']) : 50))
  }
  if (!files.length) throw new UsageError('digest needs files or --sessions: dsh-memento digest <file...> | digest --sessions')
  const { track, scope } = layerFlags(flags, { track: 'agent', scope: 'workspace' })
  const scans = files.map((f) => scanFile(f, { events: flags.events === 'all' ? 'all' : 'user' }))
  const candidates = scans.flatMap((s) => s.candidates.map((c) => ({ ...c, cwd: s.cwd })))
  const ctx = await openProvider(flags, { write: !flags['dry-run'] })
  try {
    const keys = sessionKeys(flags, ctx.mod)
    const { proposals, skipped } = toProposals(candidates, {
      entries: ctx.provider ? ctx.provider.listEntries() : [],
      proposals: ctx.provider ? [...ctx.provider.proposalList('pending', 1000), ...ctx.provider.proposalList('dismissed', 1000)] : [],
      track,
      scope,
      agentKey: keys.agentKey,
      workspaceKey: flags.workspace !== undefined ? keys.workspaceKey : undefined,
      cwdOf: (c) => c.cwd ?? process.cwd(),
      workspaceKeyOf: (cwd) => (typeof ctx.mod?.workspaceKeyOf === 'function' ? ctx.mod.workspaceKeyOf(cwd) : path.resolve(cwd)),
    })
    if (flags['dry-run']) {
      if (flags.json) return json({ dryRun: true, files, proposals, skipped })
      out(`Digest of ${files.length} file(s): ${proposals.length} new candidate(s), ${skipped.length} skipped (dry run; nothing recorded).`)
      for (const p of proposals) out(`- ${p.track}/${p.scope}: ${p.text}`)
      for (const s of skipped) out(`  skipped (${s.reason}): ${s.text}`)
      return
    }
    const rec = recordProposals(ctx.provider, proposals)
    if (flags.json) return json({ files, added: rec.added, alreadyProposed: rec.already.length, skipped })
    out(`Digest of ${files.length} file(s): ${rec.added.length} proposal(s) recorded, ${rec.already.length} proposed before, ${skipped.length} skipped. Nothing was written to memory; review with: dsh-memento proposals`)
    for (const p of rec.added) out(`- [${p.id}] ${p.track}/${p.scope}: ${p.text}`)
  } finally { ctx.close() }
}

async function cmdMirror(args, flags) {
  if (args.length) throw new UsageError('mirror takes no positional arguments')
  const { track, scope } = layerFlags(flags)
  const { provider, close, mod } = await openProvider(flags)
  try {
    const keys = sessionKeys(flags, mod)
    const sel = { track, scope, agentKey: keys.agentKey, workspaceKey: keys.workspaceKey }
    const entries = selectScope(provider ? provider.listEntries() : [], sel)
    if (flags.to === 'claude-md') {
      if (!flags.file) throw new UsageError('mirror --to claude-md needs --file <CLAUDE.md|AGENTS.md>')
      const res = mirrorToMarkdownFile(flags.file, entries)
      return flags.json ? json(res) : out(`Mirrored ${res.entries} entries into the dsh-memento block of ${res.file}${res.changed ? '' : ' (unchanged)'}.`)
    }
    if (flags.to === 'memory-standard') {
      if (!flags.out) throw new UsageError('mirror --to memory-standard needs --out <dir>')
      const res = mirrorToMemoryStandard(flags.out, entries, { force: flags.force, memoryId: flags['memory-id'], selection: sel })
      return flags.json ? json(res) : out(`Mirrored ${entries.length} entries into ${res.dir} (${res.written.length} files written, ${res.removed.length} stale notes removed; index ${res.usage.lines}/${res.usage.lineCap} lines, ${res.usage.bytes}/${res.usage.byteCap} bytes).`)
    }
    throw new UsageError('mirror needs --to claude-md or --to memory-standard')
  } finally { close() }
}

const COMMANDS = {
  list: cmdList, query: cmdQuery, budgets: cmdBudgets, audit: cmdAudit, add: cmdAdd, remove: cmdRemove,
  replace: cmdReplace, consolidate: cmdConsolidate, export: cmdExport, import: cmdImport,
  proposals: cmdProposals, adapters: cmdAdapters, digest: cmdDigest, mirror: cmdMirror,
}

async function main(argv) {
  let parsed
  try {
    parsed = parseArgs(argv)
  } catch (e) {
    err(`dsh-memento: ${e.message}\n\n${USAGE}`)
    return 2
  }
  const { cmd, args, flags } = parsed
  if (flags.help || cmd === 'help') { out(USAGE); return 0 }
  if (!cmd) { err(USAGE); return 2 }
  const run = COMMANDS[cmd]
  if (!run) { err(`dsh-memento: unknown command ${JSON.stringify(cmd)}\n\n${USAGE}`); return 2 }
  try {
    await run(args, flags)
    return process.exitCode ?? 0
  } catch (e) {
    if (e instanceof UsageError) { err(`dsh-memento: ${e.message}`); return 2 }
    if (isMemoryError(e)) {
      if (flags.json) out(JSON.stringify({ error: { code: e.code, message: e.message, details: e.details } }, null, 2))
      err(`dsh-memento: ${e.code}: ${e.message}`)
      return 1
    }
    err(`dsh-memento: ${e?.message ?? String(e)}`)
    return 1
  }
}

process.exitCode = await main(process.argv.slice(2))
