#!/usr/bin/env node
// dsh-memento: manage a dsh-memento store from a terminal (Node >= 20, no harness needed).
// Its syntax over the verbs `/memory` shares (lib/commands), plus digest and mirror.
// Every write goes through the provider's approval gate: the full change is shown and asked at
// the terminal unless --yes; with no terminal and no --yes the write is refused (WRITE_DENIED)
// and the refusal is audited like any other denial.

import { randomUUID } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import readline from 'node:readline'
import { fileURLToPath } from 'node:url'
import { createDefaultRegistry } from '../lib/adapters/index.mjs'
import {
  emptyStore,
  errorHelp,
  renderVerb,
  runVerb,
  SCOPES,
  seqArg,
  staleDaysFlag,
  TRACKS,
  usageFor,
  UsageError,
} from '../lib/commands/index.mjs'
import { shown } from '../lib/commands/render.mjs'
import { native } from '../lib/native.mjs'
import { alreadyStored, findSessionLogs, recordProposals, scanFile, toProposals } from '../lib/digest.mjs'
import { exportFiles, renderExport } from '../lib/envelope.mjs'
import { isMemoryError } from '../lib/errors.mjs'
import { writePrivateFile, writePrivateFiles } from '../lib/files.mjs'
import { mirrorToMarkdownFile, mirrorToMemoryStandard } from '../lib/mirror.mjs'
import { strings } from '../lib/strings.mjs'

const SURFACE = 'dsh-memento'
const { cmd: t, cli: s } = strings('en')
const usage = usageFor(t, SURFACE)

const VALUE_FLAGS = new Set([
  'db',
  'budgets',
  'secret-policy',
  'track',
  'scope',
  'limit',
  'tags',
  'source',
  'agent',
  'workspace',
  'adapter',
  'out',
  'out-dir',
  'part-size',
  'text',
  'to',
  'file',
  'max-sessions',
  'memory-id',
  'events',
  'stale-days',
  'fix',
  'write-policy',
  'print-config',
  'session',
])
const BOOL_FLAGS = new Set([
  'json',
  'yes',
  'help',
  'verify',
  'skip-existing',
  'skip-flagged',
  'dry-run',
  'force',
  'sessions',
  'follow-imports',
])
const SHORT = { y: 'yes', h: 'help' }

function parseArgs(argv) {
  const flags = {}
  const pos = []
  let rest = false
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    if (rest || a === '-' || !a.startsWith('-') || /^-\d/.test(a)) {
      pos.push(a)
      continue
    }
    if (a === '--') {
      rest = true
      continue
    }
    let name
    let value
    if (a.startsWith('--')) {
      const eq = a.indexOf('=')
      name = eq > 0 ? a.slice(2, eq) : a.slice(2)
      value = eq > 0 ? a.slice(eq + 1) : undefined
    } else {
      name = SHORT[a.slice(1)]
      if (!name) throw new UsageError(s.unknownOption(a))
    }
    if (BOOL_FLAGS.has(name)) {
      if (value !== undefined) throw new UsageError(s.noValue(name))
      flags[name] = true
    } else if (VALUE_FLAGS.has(name)) {
      if (value === undefined) {
        if (i + 1 >= argv.length) throw new UsageError(s.needsValue(name))
        value = argv[++i]
      }
      flags[name] = value
    } else throw new UsageError(s.unknownOption(`--${name}`))
  }
  return { cmd: pos[0], args: pos.slice(1), flags }
}

// A closed pipe (`dsh-memento list | head`) is not an error.
process.stdout.on('error', (e) => {
  if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0)
  else throw e
})

// What reaches a terminal holds no control or invisible character to obey (a file being imported,
// a store the JS plugin wrote, a message quoting either): each is written as an escape.
const safe = (x) => native.visibleLines(x).join('\n')
const line = (x) => (x.endsWith('\n') ? x : `${x}\n`)
const out = (x) => process.stdout.write(line(safe(x)))
const err = (x) => process.stderr.write(line(safe(x)))
// JSON escapes C0 itself; these it leaves raw, and a terminal may obey them (U+009B is a CSI).
const HIDDEN_IN_JSON = /[\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff]|\udb40[\udc00-\udc7f]/g
const jsonText = (v) =>
  JSON.stringify(v, null, 2).replace(HIDDEN_IN_JSON, (c) =>
    [...c].map((u) => `\\u${u.charCodeAt(0).toString(16).padStart(4, '0')}`).join(''),
  )
/** An export's bytes: exactly what the store holds into a pipe or a file, made safe on a terminal. */
const data = (x) => process.stdout.write(process.stdout.isTTY ? safe(x) : x)
/** `v` as JSON: the native layer already emits every entry in the protocol's key order. */
const json = (v) => process.stdout.write(line(jsonText(v)))

function choice(flags, name, choices) {
  if (flags[name] !== undefined && !choices.includes(flags[name])) throw new UsageError(s.badChoice(name, choices, flags[name]))
  return flags[name]
}
const layerFlags = (flags) => ({ track: choice(flags, 'track', TRACKS), scope: choice(flags, 'scope', SCOPES) })

function limitFlag(flags, dflt) {
  if (flags.limit === undefined) return dflt
  const n = Number(flags.limit)
  if (!Number.isInteger(n) || n < 1) throw new UsageError(s.badLimit(flags.limit))
  return n
}

const tagsFlag = (flags) =>
  flags.tags === undefined
    ? undefined
    : flags.tags
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean)

function budgetsFlag(flags) {
  const raw = flags.budgets ?? process.env.DSH_MEMENTO_BUDGETS
  if (raw === undefined || raw === '') return undefined
  let v
  try {
    v = JSON.parse(raw)
  } catch {
    throw new UsageError(s.badBudgets)
  }
  if (!v || typeof v !== 'object') throw new UsageError(s.badBudgets)
  return v
}

// ---- provider ---------------------------------------------------------------------------------

async function loadModule() {
  const spec = new URL('../lib/provider.mjs', import.meta.url).href
  try {
    return await import(spec)
  } catch (e) {
    // The loader's own error names the platform and what to do.
    if (e?.code === 'NATIVE_BINDING_MISSING') throw e
    throw new Error(s.cannotLoad(fileURLToPath(spec), e.message))
  }
}

/** Interactive approval: prints the gate payload (the full change) and asks y/N on the terminal. */
function makeGate(flags) {
  const interactive = Boolean(process.stdin.isTTY) && !flags.yes
  let rl = null
  // Resolves the typed answer, or null when the user pressed Ctrl-C or closed the input (Ctrl-D).
  const ask = (q) =>
    new Promise((resolve) => {
      rl ??= readline.createInterface({ input: process.stdin, output: process.stderr, terminal: true })
      const cancel = () => {
        err('')
        resolve(null)
      }
      rl.once('SIGINT', cancel)
      rl.once('close', cancel)
      rl.question(q, (answer) => {
        rl.off('SIGINT', cancel)
        rl.off('close', cancel)
        resolve(answer)
      })
    })
  const alike = new WeakMap() // write context → what its payload named as alike
  const gate = async (payload, write) => {
    if (payload.similar?.length) alike.set(write, payload.similar)
    const warnings = Array.isArray(payload.warnings) ? payload.warnings : []
    if (flags.yes) {
      for (const w of warnings) err(`dsh-memento: ${s.gateWarning(payload.action, w)}`)
      return 'allowed-once'
    }
    if (!interactive) {
      err(`dsh-memento: ${s.noTerminal}`)
      return 'unavailable'
    }
    // The reason is the whole change, every field, control characters escaped: what lands.
    err(`\n${s.approveHeader}\n${'-'.repeat(60)}\n${payload.reason}\n${'-'.repeat(60)}`)
    const answer = await ask(s.approvePrompt)
    if (answer === null) return 'cancelled'
    return /^\s*y(es)?\s*$/i.test(answer) ? 'allowed-once' : 'rejected'
  }
  const auditVia = () => `cli ${flags.yes ? '--yes' : interactive ? 'prompt' : 'no-tty'}`
  return { gate, auditVia, similarOf: (write) => alike.get(write) ?? [], close: () => rl?.close() }
}

/**
 * The verb env. Its store opens on first use (after the verb checked its arguments); a read of a
 * store that does not exist yet gets an empty stand-in instead of creating the file. `approval`
 * replaces the terminal's gate (`{gate, auditVia, similarOf}`: the MCP server's), `options`
 * adds provider options.
 */
async function open(flags, { write = false, approval, options } = {}) {
  const mod = await loadModule()
  const dbPath = mod.resolveDbPath(flags.db === undefined ? '' : path.resolve(flags.db))
  const cwd = path.resolve(flags.workspace ?? process.cwd())
  const keys = { workspaceKey: mod.workspaceKeyOf(cwd), agentKey: mod.agentKeyOf(flags.agent ?? '') }
  const header = { cwd, ...(flags.agent !== undefined ? { agentPreset: flags.agent } : {}) }
  const budgets = budgetsFlag(flags)
  const secretPolicy = choice(flags, 'secret-policy', ['refuse', 'warn'])
  let store = null
  const g = approval ?? makeGate(flags)
  const connect = () => {
    if (!write && !fs.existsSync(dbPath)) {
      const b = { user: { ...mod.DEFAULT_BUDGETS.user, ...budgets?.user }, agent: { ...mod.DEFAULT_BUDGETS.agent, ...budgets?.agent } }
      return emptyStore(
        TRACKS.flatMap((track) =>
          SCOPES.map((scope) => ({ track, scope, used: 0, limit: b[track][scope === 'user-global' ? 'userGlobal' : 'workspace'] })),
        ),
      )
    }
    // `digest` records the proposals the user asked for (the plugin caps its own automatic ones at
    // proposals.maxPending); the system prompt shows any number of them as one bounded notice.
    return new mod.MemoryProvider({
      dbPath,
      gate: g.gate,
      auditVia: g.auditVia,
      budgets: budgets ?? 'recorded',
      proposalMaxPending: 1000,
      ...(secretPolicy ? { secretPolicy } : {}),
      ...options,
    })
  }
  return {
    mod,
    keys,
    registry: createDefaultRegistry(),
    usage,
    t,
    own: t[SURFACE],
    warn: (ws) => ws.forEach((w) => err(t.warning(w))),
    similarOf: g.similarOf,
    write: () => ({ agent: { session: { id: `cli:${randomUUID()}`, header } }, source: 'cli' }),
    get provider() {
      store ??= connect()
      return store
    },
    close: () => {
      g.close?.()
      store?.close?.()
    },
  }
}

// ---- commands ---------------------------------------------------------------------------------

const WRITES = new Set(['add', 'remove', 'replace', 'consolidate', 'approve', 'dismiss', 'import', 'undo'])

/** The shared verb for one CLI command line: `[verb, args]`. */
function verbArgs(cmd, args, flags) {
  const layer = layerFlags(flags)
  const write = { ...layer, source: flags.source ?? 'cli', tags: tagsFlag(flags) }
  const arrow = args.indexOf('=>')
  const left = arrow < 0 ? args : args.slice(0, arrow)
  const right = arrow < 0 ? undefined : args.slice(arrow + 1).join(' ')
  switch (cmd) {
    case 'list':
      if (args.length) throw new UsageError(s.noArguments('list', 'use query <text> to search'))
      return ['list', { ...layer, limit: limitFlag(flags, Infinity) }]
    case 'query':
      return ['query', { ...layer, text: args.join(' ').trim(), limit: limitFlag(flags, 20) }]
    case 'budgets':
      return ['budgets', {}]
    case 'audit':
      return ['audit', { verify: flags.verify, limit: limitFlag(flags, 50) }]
    case 'history':
      return ['history', { ...layer, target: args.join(' ').trim() }]
    case 'undo':
      if (args.length > 1) throw usage('undo')
      return ['undo', { seq: seqArg(args[0]) }]
    case 'sessions':
      if (args.length) throw usage('sessions')
      return ['sessions', { sessionId: flags.session, limit: limitFlag(flags, 50) }]
    case 'add':
      return ['add', { ...write, text: flags.text ?? args.join(' ') }]
    case 'remove':
      return ['remove', { ...layer, match: args.join(' '), source: flags.source ?? 'cli' }]
    case 'replace':
      return ['replace', { ...write, match: arrow < 0 ? args[0] : left.join(' '), text: flags.text ?? right ?? args.slice(1).join(' ') }]
    case 'consolidate':
      return ['consolidate', { ...write, matches: left, text: flags.text ?? right }]
    case 'proposals': {
      const [sub, id] = args
      if (sub === undefined) return ['proposals', { limit: 1000 }]
      if (!['approve', 'dismiss'].includes(sub) || !id || args.length > 2) throw usage('proposals')
      return [sub, { id }]
    }
    case 'adapters':
      return ['adapters', {}]
    case 'doctor': {
      if (args.length) throw usage('doctor')
      return ['doctor', { staleDays: staleDaysFlag(flags['stale-days']), fix: flags.fix }]
    }
    case 'export':
      if (args.length) throw usage('export')
      return [
        'export',
        {
          ...layer,
          adapter: flags.adapter,
          memoryId: flags['memory-id'],
          parts: Boolean(flags['out-dir']),
          partSize: flags['part-size'] === undefined ? undefined : Number(flags['part-size']),
        },
      ]
    case 'import': {
      if (args.includes('-') && !flags.yes && !flags['dry-run']) throw new UsageError(s.stdinNeedsYes)
      const started = Date.now()
      const onProgress = ({ phase, total, added }) => {
        if (total >= 200)
          err(phase === 'asking' ? s.importAsking(total, Date.now() - started) : s.importWritten(added, Date.now() - started))
      }
      return [
        'import',
        {
          ...layer,
          sources: args,
          adapter: flags.adapter,
          dryRun: flags['dry-run'],
          followImports: flags['follow-imports'],
          skipExisting: flags['skip-existing'],
          skipFlagged: flags['skip-flagged'],
          onProgress,
          started,
        },
      ]
    }
    default:
      return [null]
  }
}

/** Export files: private, never through a planted link (lib/files.mjs); a directory in use needs --force. */
function writeFiles(dir, files, force) {
  if (fs.existsSync(dir) && fs.readdirSync(dir).length && !force) throw new UsageError(s.notEmpty(dir))
  writePrivateFiles(dir, files, { force })
}

/** `export` writes files or stdout rather than printing a result. */
function presentExport(r, flags) {
  if (r.adapter !== undefined) {
    for (const w of r.value?.warnings ?? []) err(t.warning(w))
    if (r.value?.files && !flags.json) {
      if (!flags.out) throw new UsageError(s.needsOutDir(r.adapter, Object.keys(r.value.files)))
      writeFiles(flags.out, r.value.files, flags.force)
      return err(s.exportedFiles(r.count, r.adapter, flags.out, Object.keys(r.value.files).length))
    }
    const text =
      `${flags.json && typeof r.value !== 'string' ? JSON.stringify(r.value, null, 2) : renderVerb('export', r, {}, t, SURFACE)}`.replace(
        /\n?$/,
        '\n',
      )
    if (!flags.out) return data(text)
    writePrivateFile(flags.out, text, { force: flags.force })
    return err(s.exportedFile(r.count, r.adapter, flags.out))
  }
  const envs = r.envelopes
  const n = envs.reduce((k, e) => k + e.entries.length, 0)
  if (flags['out-dir']) {
    writeFiles(flags['out-dir'], exportFiles(envs), flags.force)
    return err(s.exportedParts(n, envs.length, flags['out-dir']))
  }
  if (!flags.out) return data(renderExport(envs[0]))
  writePrivateFile(flags.out, renderExport(envs[0]), { force: flags.force })
  return err(s.exported(n, flags.out))
}

/** `--json` output where it is not the verb's result itself. */
const JSON_OF = {
  audit: (r) => r.verify ?? r.rows,
  import: (r, a) =>
    r.dryRun
      ? { dryRun: true, entries: r.entries, warnings: r.warnings, flagged: r.flagged }
      : { added: r.added, skipped: r.skipped, flagged: r.flagged, ms: Date.now() - a.started, warnings: r.warnings },
}

async function runShared(cmd, args, flags) {
  const [verb, a] = verbArgs(cmd, args, flags)
  if (!verb) return false
  const env = await open(flags, { write: WRITES.has(verb) ? !a.dryRun : verb === 'doctor' && a.fix !== undefined })
  // doctor: the whole store, or the visible set of a session in --workspace as --agent
  if (verb === 'doctor' && (flags.workspace !== undefined || flags.agent !== undefined)) a.visible = env.keys
  try {
    const r = await runVerb(verb, env, a)
    if (verb === 'export') presentExport(r, flags)
    else if (flags.json) json(JSON_OF[verb]?.(r, a) ?? r)
    else out(renderVerb(verb, r, a, t, SURFACE))
    // a broken chain, nothing to undo, an unknown session: the answer is no
    if ((verb === 'audit' && r.verify?.ok === false) || (verb === 'undo' && r.reverted === null)) process.exitCode = 1
    if (verb === 'sessions' && a.sessionId && !r.sessions.length) process.exitCode = 1
    return true
  } finally {
    env.close()
  }
}

async function cmdDigest(args, flags) {
  const files = [...args]
  if (flags.sessions) {
    const mod = await loadModule()
    files.push(...findSessionLogs(mod.dshHome(), flags['max-sessions'] ? Number(flags['max-sessions']) : 50))
  }
  if (!files.length) throw new UsageError(s.digestUsage)
  const { track = 'agent', scope = 'workspace' } = layerFlags(flags)
  const scans = files.map((f) => scanFile(f, { events: flags.events === 'all' ? 'all' : 'user' }))
  const candidates = scans.flatMap((x) => x.candidates.map((c) => ({ ...c, cwd: x.cwd })))
  const env = await open(flags, { write: !flags['dry-run'] })
  try {
    const p = env.provider
    const { proposals, skipped } = toProposals(candidates, {
      inMemory: alreadyStored(p),
      proposals: [...p.proposalList('pending', 1000), ...p.proposalList('dismissed', 1000)],
      track,
      scope,
      agentKey: env.keys.agentKey,
      workspaceKey: flags.workspace !== undefined ? env.keys.workspaceKey : undefined,
      cwdOf: (c) => c.cwd ?? process.cwd(),
      workspaceKeyOf: (cwd) => env.mod.workspaceKeyOf(cwd),
    })
    if (flags['dry-run']) {
      if (flags.json) return json({ dryRun: true, files, proposals, skipped })
      out(s.digestDry(files.length, proposals.length, skipped.length))
      for (const x of proposals) out(`- ${x.track}/${x.scope}: ${shown(x.text)}`)
      for (const x of skipped) out(s.digestSkipped(x.reason, shown(x.text)))
      return
    }
    const rec = recordProposals(p, proposals)
    if (flags.json) return json({ files, added: rec.added, alreadyProposed: rec.already.length, skipped })
    out(s.digested(files.length, rec.added.length, rec.already.length, skipped.length))
    for (const x of rec.added) out(`- [${x.id}] ${x.track}/${x.scope}: ${shown(x.text)}`)
  } finally {
    env.close()
  }
}

async function cmdMirror(args, flags) {
  if (args.length) throw new UsageError(s.noArguments('mirror'))
  const { track, scope } = layerFlags(flags)
  if (flags.to === 'claude-md' && !flags.file) throw new UsageError(s.mirrorNeeds('--to claude-md needs --file <CLAUDE.md|AGENTS.md>'))
  if (flags.to === 'memory-standard' && !flags.out) throw new UsageError(s.mirrorNeeds('--to memory-standard needs --out <dir>'))
  if (flags.to !== 'claude-md' && flags.to !== 'memory-standard')
    throw new UsageError(s.mirrorNeeds('needs --to claude-md or --to memory-standard'))
  const env = await open(flags)
  try {
    const sel = { track, scope, ...env.keys }
    // What a session in this workspace and agent sees, by the provider's own rule, of the layer asked.
    const entries = env.provider.listEntries({ ...env.keys, only: { track, scope } })
    if (flags.to === 'claude-md') {
      const res = mirrorToMarkdownFile(flags.file, entries)
      return flags.json ? json(res) : out(s.mirroredFile(res.entries, res.file, res.changed))
    }
    const res = mirrorToMemoryStandard(flags.out, entries, { force: flags.force, memoryId: flags['memory-id'], selection: sel })
    return flags.json ? json(res) : out(s.mirroredRoot(entries.length, res))
  } finally {
    env.close()
  }
}

/** `mcp`: the MCP server (lib/mcp), imported only here, so that nothing else loads its SDK. */
async function cmdMcp(args, flags) {
  const { runMcp } = await import('../lib/mcp/run.mjs')
  return runMcp(args, flags, { open, log: err })
}

async function main(argv) {
  let parsed
  try {
    parsed = parseArgs(argv)
  } catch (e) {
    err(`dsh-memento: ${e.message}\n\n${s.help}`)
    return 2
  }
  const { cmd, args, flags } = parsed
  if (flags.help || cmd === 'help') {
    out(s.help)
    return 0
  }
  if (!cmd) {
    err(s.help)
    return 2
  }
  try {
    if (cmd === 'mcp') return await cmdMcp(args, flags)
    const done =
      cmd === 'digest'
        ? ((await cmdDigest(args, flags)) ?? true)
        : cmd === 'mirror'
          ? ((await cmdMirror(args, flags)) ?? true)
          : await runShared(cmd, args, flags)
    if (!done) {
      err(`dsh-memento: ${s.unknownCommand(cmd)}\n\n${s.help}`)
      return 2
    }
    return process.exitCode ?? 0
  } catch (e) {
    if (e instanceof UsageError) {
      err(`dsh-memento: ${e.message}`)
      return 2
    }
    if (isMemoryError(e)) {
      if (flags.json) process.stdout.write(line(jsonText({ error: { code: e.code, message: e.message, details: e.details } })))
      err([`dsh-memento: ${e.code}: ${e.message}`, ...errorHelp(e, t, SURFACE)].join('\n'))
      return 1
    }
    err(`dsh-memento: ${e?.message ?? String(e)}`)
    return 1
  }
}

process.exitCode = await main(process.argv.slice(2))
