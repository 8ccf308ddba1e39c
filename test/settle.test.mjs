// No write promise is left pending, and every rejection is a coded Error: when another plugin
// made Error.prototype hostile (setters that throw), the write still rejects with its code;
// when the provider object is garbage-collected while its gate is pending, the write still
// finishes once the gate answers. Each case runs in its own Node process.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { INDEX, NATIVE_SKIP } from './support/faults/common.mjs'

const skip = NATIVE_SKIP

function child(t, body, flags = []) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'memento-settle-'))
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }))
  const script = `
    import { MemoryProvider } from ${JSON.stringify(pathToFileURL(INDEX).href)}
    const dbPath = ${JSON.stringify(path.join(dir, 'memory.db'))}
    const write = { agent: { session: { id: 'settle' } } }
    const UG = { track: 'user', scope: 'user-global' }
    const settled = (p) => Promise.race([
      p.then((v) => ({ fulfilled: v }), (e) => ({ rejected: e instanceof Error ? { code: e.code, message: e.message, details: e.details } : { notAnError: String(e) } })),
      new Promise((r) => setTimeout(() => r('pending'), 3000)),
    ])
    ${body}`
  const out = spawnSync(process.execPath, [...flags, '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 30_000 })
  assert.equal(out.status, 0, out.stderr)
  return JSON.parse(out.stdout)
}

test('a hostile Error.prototype cannot keep a write from rejecting with its coded error', { skip }, (t) => {
  const r = child(
    t,
    `
    const denied = new MemoryProvider({ dbPath, gate: async () => 'rejected' })
    const invalid = new MemoryProvider({ dbPath, gate: () => 'allowed-once' })
    for (const key of ['code', 'details', 'cause']) Object.defineProperty(Error.prototype, key, { set() { throw new Error('hostile setter') }, configurable: true })
    const results = {
      deniedByTheGate: await settled(denied.add({ ...UG, text: 'never lands' }, write)),
      invalidBeforeTheGate: await settled(invalid.add({ track: 'nope', scope: 'user-global', text: 'x' }, write)),
    }
    for (const key of ['code', 'details', 'cause']) delete Error.prototype[key]
    results.rows = denied.auditList(5).map((r) => r.action)
    console.log(JSON.stringify(results))`,
  )
  assert.equal(r.deniedByTheGate.rejected.code, 'WRITE_DENIED')
  assert.match(r.deniedByTheGate.rejected.message, /^memory write not approved/)
  assert.deepEqual(r.deniedByTheGate.rejected.details, { outcome: 'rejected' })
  assert.equal(r.invalidBeforeTheGate.rejected.code, 'INVALID_INPUT')
  assert.deepEqual(r.rows, ['add-denied'], 'the denial is still audited')
})

test('a provider garbage-collected while its gate is pending still finishes the write', { skip }, (t) => {
  const r = child(
    t,
    `
    let release
    let p = new MemoryProvider({ dbPath, gate: () => new Promise((resolve) => (release = resolve)) })
    const pending = p.add({ ...UG, text: 'written after the provider was collected' }, write)
    p = null
    for (let i = 0; i < 5; i++) { globalThis.gc(); await new Promise((r) => setTimeout(r, 10)) }
    release('allowed-once')
    const result = await settled(pending)
    const again = new MemoryProvider({ dbPath, gate: () => 'allowed-once' })
    console.log(JSON.stringify({ result, texts: again.listEntries().map((e) => e.text), ok: again.auditVerify().ok }))`,
    ['--expose-gc'],
  )
  assert.equal(r.result.fulfilled?.entry?.text, 'written after the provider was collected', JSON.stringify(r.result))
  assert.deepEqual(r.texts, ['written after the provider was collected'])
  assert.equal(r.ok, true)
})
