// What a user on a platform without a working binary sees: a coded error naming the platform and
// what to do, never a loader stack trace. The package is copied without its addons.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { currentPlatform } from '../lib/platform.mjs'

const ROOT = fileURLToPath(new URL('../', import.meta.url))

function withoutAddons(t) {
  const dir = mkdtempSync(join(tmpdir(), 'memento-platform-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  for (const f of ['index.mjs', 'native.cjs', 'package.json', 'lib']) cpSync(join(ROOT, f), join(dir, f), { recursive: true })
  return dir
}

/** Imports the package in a child (optionally posing as another CPU) and returns the error. */
function loadError(dir, arch) {
  const pose = arch ? `Object.defineProperty(process, 'arch', { value: ${JSON.stringify(arch)} });` : ''
  const script = `${pose} import(${JSON.stringify(pathToFileURL(join(dir, 'index.mjs')).href)}).then(() => console.log('{}'), (e) => console.log(JSON.stringify({ code: e.code, message: e.message, details: e.details })))`
  const out = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
    env: { ...process.env, NAPI_RS_NATIVE_LIBRARY_PATH: '' },
  })
  assert.equal(out.status, 0, out.stderr)
  return JSON.parse(out.stdout)
}

test('a platform with no prebuilt addon gets NATIVE_BINDING_MISSING naming it and the way out', (t) => {
  const e = loadError(withoutAddons(t), 'riscv64')
  assert.equal(e.code, 'NATIVE_BINDING_MISSING')
  assert.match(e.details.platform, /-riscv64/)
  assert.match(e.message, /no prebuilt native binding for \S+-riscv64/)
  assert.match(e.message, /linux-x64-gnu, linux-x64-musl, linux-arm64-gnu, linux-arm64-musl, darwin-x64, darwin-arm64, win32-x64-msvc/)
  assert.match(e.message, /cargo build --release/)
})

test('a shipped platform whose addon is absent says how to get it', (t) => {
  const e = loadError(withoutAddons(t))
  assert.equal(e.code, 'NATIVE_BINDING_MISSING')
  assert.equal(e.details.platform, currentPlatform())
  assert.match(e.message, new RegExp(`native binding for ${currentPlatform()} did not load`))
  assert.match(e.message, new RegExp(`dsh-memento-${currentPlatform()}`))
  assert.match(e.message, /full package tarball/)
})

test("an addon that is present but cannot be loaded names the loader's reason", (t) => {
  const dir = withoutAddons(t)
  writeFileSync(join(dir, `memento.${currentPlatform()}.node`), 'not a shared library')
  const e = loadError(dir)
  assert.equal(e.code, 'NATIVE_BINDING_MISSING')
  assert.match(e.message, /did not load/)
  // glibc: 'invalid ELF header'; musl: 'Exec format error'; Windows: 'not a valid Win32 application'
  // (Wine: 'Bad EXE format').
  assert.match(
    e.message,
    /invalid ELF header|Exec format error|not a valid Win32 application|Bad EXE format|not a mach-o file|too short|file too short/i,
  )
})
