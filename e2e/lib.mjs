// Shared helpers of the real-harness end-to-end tests and the demo: a scratch $DSH_HOME, the
// packed plugin, headless turns against the fake model, driver boots and session-log reading.
// Needs Node >= 22 and `dsh`/`pnpm` on PATH (source .ci/harness.sh first).
import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { zstdDecompressSync } from 'node:zlib'
import { currentPlatform } from '../lib/platform.mjs'

export const ROOT = dirname(dirname(fileURLToPath(import.meta.url)))
export const E2E = join(ROOT, 'e2e')
export const WORK = process.env.E2E_WORK ?? mkdtempSync(join(tmpdir(), 'memento-e2e-'))
/** The scratch's fate: kept when a step failed (`fail()`), or when E2E_WORK / E2E_KEEP ask; removed by `finish()` otherwise. */
export const scratch = {
  failed: false,
  fail() {
    this.failed = true
  },
  finish() {
    if (!this.failed && !process.env.E2E_WORK && !process.env.E2E_KEEP) rmSync(WORK, { recursive: true, force: true })
    else process.stderr.write(`e2e scratch kept: ${WORK}\n`)
  },
}
export const HOME = join(WORK, 'dsh-home')
export const CWD = join(WORK, 'project') // the sessions' working directory (workspace key)
export const PKG = 'dsh-memento'
export const env = { ...process.env, DSH_HOME: HOME, DEEPSEEK_API_KEY: 'e2e-no-key' }
delete env.DSH_PERMISSION_MODE
export const overlay = (n) => ['--patch', join(E2E, 'overlays', `${n}.yml`)]

export function sh(cmd, args, { cwd = WORK, timeout = 120_000, extraEnv = {} } = {}) {
  const r = spawnSync(cmd, args, { cwd, env: { ...env, ...extraEnv }, encoding: 'utf8', timeout, maxBuffer: 64 << 20 })
  return { code: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '', error: r.error }
}
export function ok(r, what) {
  assert.equal(r.code, 0, `${what} failed (exit ${r.code})\nstdout:\n${r.stdout.slice(-4000)}\nstderr:\n${r.stderr.slice(-4000)}`)
  return r
}
export const profileJson = (p) => JSON.parse(readFileSync(join(HOME, 'profiles', p, 'package.json'), 'utf8'))

/** The plugin fields package.json must carry (proposed; applied only when asked to). */
export const PLUGIN_FIELDS = {
  exports: { './client': './client/client.js' },
  files: ['lib/', 'client/', 'cordis.patch.yml'],
  dsh: { bundle: { patch: './cordis.patch.yml' }, client: { platform: 'web', immediately: true } },
  peerDependencies: { '@deepseek-ai/schemastery': '^3.18.1' },
  peerDependenciesMeta: { '@deepseek-ai/schemastery': { optional: true } },
}
export function patchPackage(dir) {
  const file = join(dir, 'package.json')
  const pkg = JSON.parse(readFileSync(file, 'utf8'))
  pkg.dsh ??= PLUGIN_FIELDS.dsh
  pkg.exports = { ...(typeof pkg.exports === 'object' ? pkg.exports : {}), ...PLUGIN_FIELDS.exports }
  pkg.files = [...new Set([...(pkg.files ?? []), ...PLUGIN_FIELDS.files])]
  pkg.peerDependencies ??= PLUGIN_FIELDS.peerDependencies
  pkg.peerDependenciesMeta ??= PLUGIN_FIELDS.peerDependenciesMeta
  delete pkg.scripts
  writeFileSync(file, JSON.stringify(pkg, null, 2))
  const entry = join(dir, 'index.mjs')
  const line = "export { name, inject, Config, apply } from './lib/plugin/index.mjs'\n"
  if (existsSync(entry) && !/^export \{[^}]*\bapply\b[^}]*\} from '\.\/lib\/plugin\/index\.mjs'/m.test(readFileSync(entry, 'utf8')))
    writeFileSync(entry, `${readFileSync(entry, 'utf8')}\n${line}`)
}

export function stageTarball() {
  if (process.env.E2E_TARBALL) return process.env.E2E_TARBALL
  const dest = join(WORK, 'pack')
  mkdirSync(dest, { recursive: true })
  assert.ok(
    existsSync(join(ROOT, `memento.${currentPlatform()}.node`)),
    'build the addon first (npm run build or build:targets), or set E2E_TARBALL',
  )
  ok(sh('npm', ['pack', '--silent', '--pack-destination', dest], { cwd: ROOT }), 'npm pack')
  if (process.env.E2E_PATCH_PACKAGE) {
    // Local only: repack with the plugin fields applied (CI tests the package as published).
    const tgz = join(
      dest,
      readdirSync(dest).find((f) => f.endsWith('.tgz')),
    )
    ok(sh('tar', ['xzf', tgz, '-C', dest]), 'untar')
    rmSync(tgz)
    for (const f of ['cordis.patch.yml', 'client']) cpSync(join(ROOT, f), join(dest, 'package', f), { recursive: true })
    patchPackage(join(dest, 'package'))
    ok(sh('npm', ['pack', '--silent', '--pack-destination', dest], { cwd: join(dest, 'package') }), 'repack')
  }
  const tgz = join(
    dest,
    readdirSync(dest).find((f) => f.endsWith('.tgz')),
  )
  const listing = sh('tar', ['tzf', tgz]).stdout
  assert.match(listing, /^package\/cordis\.patch\.yml$/m, 'the bundle patch ships')
  assert.match(listing, /^package\/lib\/plugin\/index\.mjs$/m, 'the plugin ships')
  // After `npm run build:targets` this is the full package: every platform's addon ships.
  const addons = readdirSync(ROOT).filter((f) => /^memento\..+\.node$/.test(f))
  for (const f of addons) assert.match(listing, new RegExp(`^package/${f.replaceAll('.', '\\.')}$`, 'm'), `${f} ships`)
  return tgz
}

/** One headless agent turn against the fake model. Returns stdout, exit code and requests. */
export async function turn(task, { toolArgs, reply, overlays = [] } = {}) {
  const log = join(WORK, `llm-${Date.now()}.jsonl`)
  const llm = spawn(process.execPath, [join(E2E, 'fake-llm.mjs')], {
    env: {
      ...env,
      FAKE_LLM_PORT: '0',
      FAKE_LLM_LOG: log,
      ...(toolArgs ? { FAKE_LLM_TOOL_ARGS: JSON.stringify(toolArgs) } : {}),
      ...(reply ? { FAKE_LLM_REPLY: reply } : {}),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  try {
    const port = await new Promise((resolve, reject) => {
      llm.stdout.on('data', (d) => {
        const m = /listening on (\d+)/.exec(String(d))
        if (m) resolve(Number(m[1]))
      })
      llm.on('exit', () => reject(new Error('fake llm exited')))
    })
    const r = sh('dsh', ['--profile', 'headless', ...overlay('hmr'), ...overlays, task], {
      cwd: CWD,
      extraEnv: { DEEPSEEK_BASE_URL: `http://127.0.0.1:${port}` },
    })
    const requests = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l).body)
    return {
      ...r,
      requests,
      toolMessages: requests.flatMap((b) => (b.messages ?? []).filter((m) => m.role === 'tool').map((m) => m.content)),
    }
  } finally {
    llm.kill()
  }
}

/** One driver boot (no model): `/memory …` lines through ctx.commands.execute. */
export function drive(commands = [], overlays = [], extraEnv = {}) {
  const r = ok(
    sh('dsh', ['--profile', 'headless', ...overlay('hmr'), ...overlay('driver'), ...overlays], {
      cwd: CWD,
      extraEnv: { E2E_COMMANDS: JSON.stringify(commands), ...extraEnv },
    }),
    'driver boot',
  )
  const line = r.stdout.split('\n').find((l) => l.startsWith('DRIVER_RESULT '))
  assert.ok(line, `no DRIVER_RESULT line:\n${r.stdout}\n${r.stderr}`)
  const out = JSON.parse(line.slice('DRIVER_RESULT '.length))
  out.byLine = Object.fromEntries(out.commands.map((c) => [c.line, c.result]))
  return out
}

/** Events of the sessions created since `known` (a Set of session ids; default: all). */
export const sessionIds = () => new Set(sessionEvents().map((e) => e.session))
/** Every event of every session log under $DSH_HOME/sessions. */
export function sessionEvents(known) {
  const root = join(HOME, 'sessions')
  const out = []
  if (!existsSync(root)) return out
  for (const slug of readdirSync(root)) {
    for (const id of readdirSync(join(root, slug))) {
      const f = join(root, slug, id, 'session.jsonl.zstd')
      if (!existsSync(f) || known?.has(id)) continue
      for (const l of zstdDecompressSync(readFileSync(f)).toString().split('\n')) if (l.trim()) out.push({ session: id, ...JSON.parse(l) })
    }
  }
  return out
}
