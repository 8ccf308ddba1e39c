// `dsh-memento mcp` as an MCP client sees it: the SDK's own Client over stdio, spawning the real
// bin/dsh-memento.mjs against a real store. Also the CLI beside it, and a provider opened on the
// same file for the test's own reads.
import childProcess from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { ElicitRequestSchema, ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { BIN, cliEnv, runCli } from './cli.mjs'

// Under Wine (test/platforms/wine.sh sets MEMENTO_UNDER_WINE=1) a node.exe started with
// `windowsHide`, as the SDK's StdioClientTransport starts every server on win32, aborts with
// libuv's `Assertion failed: process_title` (uv/win/util.c) once it has loaded the addon and the
// SDK's stdio module; the same server started without it serves (test/platforms/mcp-smoke.mjs).
// A Wine defect, not Windows': there the SDK's client starts its servers without hiding them.
// cross-spawn, which the SDK spawns through, calls child_process.spawn at call time.
if (process.platform === 'win32' && process.env.MEMENTO_UNDER_WINE === '1') {
  const spawn = childProcess.spawn
  childProcess.spawn = (command, args, options) => spawn(command, args, options && { ...options, windowsHide: false })
}

export { BIN }
export const CLIENT = { name: 'memento-test-client', version: '9.9.9' }

/** A fresh directory with a store path and a workspace. */
export function sandbox(root) {
  const dir = fs.mkdtempSync(path.join(root, 's-'))
  const ws = path.join(dir, 'ws')
  fs.mkdirSync(ws)
  return { dir, ws, db: path.join(dir, 'memory.db') }
}

/** A temporary root removed by `cleanup()`. */
export function tmpRoot(prefix) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), prefix))
  return { root, cleanup: () => fs.rmSync(root, { recursive: true, force: true }) }
}

/** The environment every child gets: no budgets override, a private $DSH_HOME. */
export function childEnv(dir) {
  return cliEnv(path.join(dir, 'home'))
}

/**
 * Connect the SDK client to `dsh-memento mcp --db <db> ...args`. `elicit(params)` answers each
 * elicitation (absent: the client declares no elicitation capability); `roots` are the client's
 * roots (absent: no roots capability). Returns the client, its stderr text and the elicitation
 * messages it was shown.
 */
export async function connect({ db, dir, args = [], elicit, roots, info = CLIENT, cwd }) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', '--db', db, ...args],
    env: childEnv(dir),
    cwd: cwd ?? dir,
    stderr: 'pipe',
  })
  let stderr = ''
  transport.stderr?.on('data', (d) => (stderr += d))
  const capabilities = { ...(elicit ? { elicitation: {} } : {}), ...(roots ? { roots: { listChanged: true } } : {}) }
  const client = new Client(info, { capabilities })
  const asked = []
  if (elicit) {
    client.setRequestHandler(ElicitRequestSchema, (request, extra) => {
      asked.push(request.params.message)
      return elicit(request.params, extra)
    })
  }
  // A root given as a URL (`https://…`) is sent as it is; a path as its `file:` URL.
  const uriOf = (r) => (/^[a-z][a-z0-9+.-]*:\/\//i.test(r) ? r : pathToFileURL(r).href)
  if (roots)
    client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: roots.map((r) => ({ uri: uriOf(r), name: path.basename(r) })) }))
  await client.connect(transport)
  return { client, transport, asked, stderr: () => stderr, pid: transport.pid }
}

/** Run the CLI against `db` (non-interactive: `--yes` is its approval). */
export function cli(dir, db, args) {
  return runCli([...args, '--db', db], { cwd: dir, env: childEnv(dir) })
}

/** The memory tool's call as the result the client got. */
export const memory = (client, args, options) => client.callTool({ name: 'memory', arguments: args }, undefined, options)
