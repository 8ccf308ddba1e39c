#!/usr/bin/env node
// dsh-memory-protocol/v1 conformance runner (node:assert only, no dependencies).
//
//   node conformance/run.mjs [--provider ./factory.mjs] [--filter X] [--json] [--timeout MS]
//
// --provider  module exporting makeProvider({dbPath, budgets, gate}) (or a default export);
//             resolved against the current directory. Default: ./provider.mjs next to this file.
// --filter    run only cases whose id starts with X or whose title contains X (case-insensitive;
//             repeatable, comma-separated values allowed). An id-like X (`C`, `B1`) selects by id
//             prefix only; `B1$` selects exactly B1.
// --json      print a JSON report instead of the line-per-case output.
// Exit code 1 when any case fails (or no case matched), 0 otherwise.
import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { detectSqlite, standardWrite } from './lib.mjs'

const HERE = path.dirname(fileURLToPath(import.meta.url))

class Skip extends Error {
  constructor(reason) {
    super(reason)
    this.name = 'Skip'
  }
}

function parseArgs(argv) {
  const args = { provider: null, filters: [], json: false, timeout: 30000 }
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    const value = () => {
      if (a.includes('=')) return a.slice(a.indexOf('=') + 1)
      if (i + 1 >= argv.length) usage(`${a} needs a value`)
      return argv[++i]
    }
    if (a === '--provider' || a.startsWith('--provider=')) args.provider = value()
    else if (a === '--filter' || a.startsWith('--filter=')) args.filters.push(...value().split(',').filter(Boolean))
    else if (a === '--timeout' || a.startsWith('--timeout=')) args.timeout = Number(value())
    else if (a === '--json') args.json = true
    else if (a === '--help' || a === '-h') usage(null)
    else usage(`unknown argument ${JSON.stringify(a)}`)
  }
  return args
}

function usage(problem) {
  const text = 'usage: node conformance/run.mjs [--provider ./factory.mjs] [--filter X] [--json] [--timeout MS]'
  if (problem) {
    process.stderr.write(`${problem}\n${text}\n`)
    process.exit(2)
  }
  process.stdout.write(`${text}\n`)
  process.exit(0)
}

async function loadCases() {
  const dir = path.join(HERE, 'cases')
  const files = (await readdir(dir)).filter((f) => f.endsWith('.mjs')).sort()
  const cases = []
  for (const f of files) {
    const mod = await import(pathToFileURL(path.join(dir, f)).href)
    const list = mod.default ?? mod.cases
    if (!Array.isArray(list)) throw new Error(`cases/${f} must export an array of cases`)
    for (const c of list) {
      if (!c || typeof c.id !== 'string' || typeof c.title !== 'string' || typeof c.run !== 'function') {
        throw new Error(`cases/${f}: every case needs {id, title, run}`)
      }
      cases.push({ ...c, file: f })
    }
  }
  const seen = new Set()
  for (const c of cases) {
    if (seen.has(c.id)) throw new Error(`duplicate case id ${c.id}`)
    seen.add(c.id)
  }
  return cases
}

function selected(c, filters) {
  if (filters.length === 0) return true
  const id = c.id.toLowerCase()
  return filters.some((f) => {
    const x = f.toLowerCase()
    if (x.endsWith('$')) return id === x.slice(0, -1) // exact id: --filter 'B1$'
    if (/^[a-z]\d*$/.test(x)) return id.startsWith(x) // id-like (C, B1): id prefix only
    return id.startsWith(x) || c.title.toLowerCase().includes(x)
  })
}

function resolveFactory(mod) {
  const candidates = [mod.makeProvider, mod.default?.makeProvider, mod.default]
  const f = candidates.find((x) => typeof x === 'function')
  if (!f) throw new Error('the provider module must export makeProvider({dbPath, budgets, gate}) or a default function')
  return f
}

function withTimeout(promise, ms, id) {
  let timer
  const t = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`case ${id} timed out after ${ms} ms (a write may be waiting forever)`)), ms)
  })
  return Promise.race([promise, t]).finally(() => clearTimeout(timer))
}

async function runCase(c, factory, sqlite, timeout) {
  const dir = await mkdtemp(path.join(tmpdir(), 'dsh-memory-conformance-'))
  const dbPath = path.join(dir, 'memory.db')
  const opened = []
  const makeProvider = async (opts = {}) => {
    const p = await factory({ ...opts, dbPath: opts.dbPath ?? dbPath })
    opened.push(p)
    return p
  }
  const ctx = {
    makeProvider,
    dbPath,
    dir,
    write: standardWrite(),
    sqlite,
    skip(reason) {
      throw new Skip(reason)
    },
  }
  const started = Date.now()
  let status = 'pass'
  let error = null
  let reason = null
  try {
    await withTimeout(
      Promise.resolve().then(() => c.run(ctx)),
      timeout,
      c.id,
    )
  } catch (e) {
    if (e instanceof Skip) {
      status = 'skip'
      reason = e.message
    } else {
      status = 'fail'
      error = e
    }
  }
  for (const p of opened) {
    try {
      await p?.close?.()
    } catch {
      // closing twice or after a failure is not under test here
    }
  }
  await rm(dir, { recursive: true, force: true }).catch(() => {})
  return { id: c.id, title: c.title, status, durationMs: Date.now() - started, error, reason }
}

function describeError(e) {
  if (e === null || e === undefined) return String(e)
  if (typeof e !== 'object') return String(e)
  let s = e.message ?? String(e)
  if (e.code && !(e.name === 'AssertionError')) s = `${e.code}: ${s}`
  if (e.code && e.name !== 'AssertionError' && e.details !== undefined) s += `\ndetails: ${safeJson(e.details)}`
  return s
}

function safeJson(x) {
  try {
    return JSON.stringify(x)
  } catch {
    return String(x)
  }
}

async function main() {
  const args = parseArgs(process.argv.slice(2))
  const providerPath = args.provider ? path.resolve(process.cwd(), args.provider) : path.join(HERE, 'provider.mjs')
  const mod = await import(pathToFileURL(providerPath).href)
  const factory = resolveFactory(mod)
  const sqlite = await detectSqlite(mod)
  const all = await loadCases()
  const cases = all.filter((c) => selected(c, args.filters))

  let current = null
  const stray = []
  const onStray = (e) => stray.push({ id: current, error: e })
  process.on('unhandledRejection', onStray)

  const results = []
  for (const c of cases) {
    current = c.id
    const r = await runCase(c, factory, sqlite, args.timeout)
    const mine = stray.filter((s) => s.id === c.id)
    if (r.status === 'pass' && mine.length > 0) {
      r.status = 'fail'
      r.error = new Error(`unhandled rejection during the case: ${describeError(mine[0].error)}`)
    }
    results.push(r)
    if (!args.json) {
      if (r.status === 'pass') process.stdout.write(`ok ${r.id} ${r.title}\n`)
      else if (r.status === 'skip') process.stdout.write(`skip ${r.id} ${r.title} (${r.reason})\n`)
      else {
        process.stdout.write(`not ok ${r.id} ${r.title}\n`)
        for (const line of describeError(r.error).split('\n')) process.stdout.write(`  # ${line}\n`)
      }
    }
  }

  const passed = results.filter((r) => r.status === 'pass').length
  const failed = results.filter((r) => r.status === 'fail').length
  const skipped = results.filter((r) => r.status === 'skip').length

  if (args.json) {
    const report = {
      protocol: 'dsh-memory-protocol/v1',
      provider: providerPath,
      sqlite: sqlite ? sqlite.name : null,
      filters: args.filters,
      passed,
      failed,
      skipped,
      total: results.length,
      cases: results.map((r) => ({
        id: r.id,
        title: r.title,
        status: r.status,
        durationMs: r.durationMs,
        ...(r.reason ? { reason: r.reason } : {}),
        ...(r.error
          ? {
              error: {
                message: describeError(r.error),
                ...(r.error?.code ? { code: r.error.code } : {}),
                ...(r.error?.details !== undefined && r.error?.name !== 'AssertionError' ? { details: r.error.details } : {}),
              },
            }
          : {}),
      })),
    }
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`)
  } else {
    if (results.length === 0) process.stdout.write(`no case matches ${args.filters.map((f) => JSON.stringify(f)).join(', ')}\n`)
    process.stdout.write(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`)
  }
  process.off('unhandledRejection', onStray)
  process.exitCode = failed > 0 || results.length === 0 ? 1 : 0
  // A timed-out case may leave a write pending forever; do not let it keep the process alive.
  setTimeout(() => process.exit(), 2000).unref()
}

main().catch((e) => {
  process.stderr.write(`conformance runner error: ${e?.stack ?? e}\n`)
  process.exit(1)
})
