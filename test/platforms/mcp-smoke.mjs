#!/usr/bin/env node
// Plain-node smoke of `dsh-memento mcp` on a platform's own node (musl, qemu, Wine): spawns the
// server with this node on a fresh store, speaks MCP's stdio transport (newline-delimited
// JSON-RPC) with no SDK on this side, and checks `initialize` (server name, protocol version,
// tools capability), `notifications/initialized`, `tools/list` (the two tools), then closes the
// server's stdin and expects exit 0 with nothing but JSON-RPC on its stdout.
//
//   node test/platforms/mcp-smoke.mjs
//   MEMENTO_SMOKE_PACKAGE=/x/node_modules/dsh-memento node test/platforms/mcp-smoke.mjs   # an installed package's bin
//   MEMENTO_MCP_SMOKE_EXEC='["qemu-aarch64-static","/x/node"]' node …   # how to run the server's node
//
// The server runs on this same node (process.execPath) unless MEMENTO_MCP_SMOKE_EXEC, a JSON
// array, names the command: under qemu-user without binfmt_misc an emulated process cannot
// exec another guest binary, so qemu.sh names the emulator and the guest node.
// Prints one line per step and ends with `mcp smoke: passed` (exit 0) or the failure (exit 1).
// MEMENTO_MCP_SMOKE_TIMEOUT_MS (default 120000: node under qemu or Wine starts slowly) bounds it.
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const root = process.env.MEMENTO_SMOKE_PACKAGE ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..')
const BIN = path.join(root, 'bin', 'dsh-memento.mjs')
const PROTOCOL = '2025-06-18'
const TOOLS = ['memory', 'memory_recall']
const limit = Number(process.env.MEMENTO_MCP_SMOKE_TIMEOUT_MS ?? 120_000)

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'memento-mcp-smoke-'))
const db = path.join(dir, 'memory.db')
const env = { ...process.env, DSH_HOME: path.join(dir, 'home') }
delete env.DSH_MEMENTO_BUDGETS
const started = Date.now()
const [cmd, ...pre] = process.env.MEMENTO_MCP_SMOKE_EXEC ? JSON.parse(process.env.MEMENTO_MCP_SMOKE_EXEC) : [process.execPath]
const child = spawn(cmd, [...pre, BIN, 'mcp', '--db', db, '--workspace', dir], { cwd: dir, env, stdio: ['pipe', 'pipe', 'pipe'] })
let stderr = ''
child.stderr.on('data', (d) => (stderr += d))
const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })))

// stdout: one JSON-RPC message per line; every line must parse (nothing else may go there).
const waiting = new Map() // id → resolve
const stray = []
let buffer = ''
child.stdout.setEncoding('utf8')
child.stdout.on('data', (chunk) => {
  buffer += chunk
  for (let i; (i = buffer.indexOf('\n')) >= 0;) {
    const line = buffer.slice(0, i).replace(/\r$/, '')
    buffer = buffer.slice(i + 1)
    if (!line.trim()) continue
    let msg
    try {
      msg = JSON.parse(line)
    } catch {
      stray.push(line)
      continue
    }
    if (msg.id !== undefined && waiting.has(msg.id)) {
      waiting.get(msg.id)(msg)
      waiting.delete(msg.id)
    } else if (msg.method === undefined) stray.push(line) // an answer nobody asked for
  }
})

const send = (msg) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...msg })}\n`)
let nextId = 1
function request(method, params) {
  const id = nextId++
  const answer = new Promise((resolve) => waiting.set(id, resolve))
  send({ id, method, params })
  return answer
}
const timeout = (ms, what) =>
  new Promise((_, reject) => setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms).unref())
const within = (p, what) =>
  Promise.race([
    p,
    timeout(Math.max(1, limit - (Date.now() - started)), what),
    exited.then((e) => Promise.reject(new Error(`the server exited (code ${e.code}, signal ${e.signal}) during ${what}`))),
  ])
function check(ok, what) {
  if (!ok) throw new Error(what)
}

try {
  console.log(`node ${process.version} ${process.platform}-${process.arch}; ${[cmd, ...pre].join(' ')} ${BIN} mcp --db ${db}`)
  const init = await within(
    request('initialize', { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: 'mcp-smoke', version: '1.0.0' } }),
    'initialize',
  )
  check(!init.error, `initialize: ${JSON.stringify(init.error)}`)
  const { serverInfo, protocolVersion, capabilities } = init.result
  check(serverInfo?.name === 'dsh-memento', `initialize: server ${JSON.stringify(serverInfo)}`)
  check(protocolVersion === PROTOCOL, `initialize: protocol ${protocolVersion}, asked ${PROTOCOL}`)
  check(capabilities?.tools !== undefined, `initialize: no tools capability in ${JSON.stringify(capabilities)}`)
  console.log(`ok initialize: ${serverInfo.name} ${serverInfo.version}, protocol ${protocolVersion} (${Date.now() - started} ms)`)
  send({ method: 'notifications/initialized' })
  const list = await within(request('tools/list', {}), 'tools/list')
  check(!list.error, `tools/list: ${JSON.stringify(list.error)}`)
  const names = list.result.tools.map((t) => t.name)
  check(JSON.stringify(names) === JSON.stringify(TOOLS), `tools/list: ${JSON.stringify(names)}, expected ${JSON.stringify(TOOLS)}`)
  check(
    list.result.tools.every((t) => t.inputSchema?.type === 'object' && t.description),
    'tools/list: a tool without its input schema or description',
  )
  console.log(`ok tools/list: ${names.join(', ')}`)
  child.stdin.end()
  const { code, signal } = await Promise.race([exited, timeout(Math.max(1, limit - (Date.now() - started)), 'the exit after stdin closed')])
  check(code === 0, `exit after stdin closed: code ${code}, signal ${signal}`)
  check(
    stray.length === 0 && buffer.trim() === '',
    `stdout held more than JSON-RPC answers: ${JSON.stringify(stray.concat(buffer).slice(0, 3))}`,
  )
  console.log(`ok exit 0 after stdin closed (${Date.now() - started} ms)`)
  console.log('mcp smoke: passed')
} catch (e) {
  child.kill()
  console.log(`FAIL ${e.message}`)
  if (stderr.trim()) console.log(`server stderr:\n${stderr.trim()}`)
  console.log('mcp smoke: FAILED')
  process.exitCode = 1
} finally {
  fs.rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 })
}
