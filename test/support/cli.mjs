// The CLI as a person runs it: `node bin/dsh-memento.mjs …` in a child process, with a private
// $DSH_HOME. Every test that spawns the CLI goes through `runCli`, so a child that never ran is
// told apart from one that ran and failed in one place.
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

export const BIN = fileURLToPath(new URL('../../bin/dsh-memento.mjs', import.meta.url))

/**
 * Run `dsh-memento ...args` to completion. `input` is its stdin (no terminal: `--yes` is its
 * approval). Returns the exit code, stdout, stderr and `json()`, which parses stdout or says
 * what the child printed instead.
 */
export function runCli(args, { cwd, env, input = '' } = {}) {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd, env, input, encoding: 'utf8' })
  if (r.error) throw new Error(`spawning dsh-memento ${args.join(' ')} failed: ${r.error.message}`, { cause: r.error })
  const json = () => {
    try {
      return JSON.parse(r.stdout)
    } catch {
      throw new Error(`dsh-memento ${args.join(' ')} printed no JSON (exit ${r.status}):\n${r.stdout}\n${r.stderr}`)
    }
  }
  return { code: r.status, out: r.stdout, err: r.stderr, json }
}

/** The environment of a CLI child: this one's, a private $DSH_HOME, no budgets override. */
export function cliEnv(home) {
  const env = { ...process.env, DSH_HOME: home }
  delete env.DSH_MEMENTO_BUDGETS
  return env
}

/**
 * A fresh directory under `root` with `home/` (its $DSH_HOME) and `ws/`, and `run(args, opts)`
 * running the CLI in `ws/` (or `opts.cwd`) with that home (`opts.env` adds variables).
 */
export function cliSandbox(root, name) {
  const dir = fs.mkdtempSync(path.join(root, name ?? 's-'))
  const ws = path.join(dir, 'ws')
  fs.mkdirSync(path.join(dir, 'home'), { recursive: true })
  fs.mkdirSync(ws, { recursive: true })
  const env = cliEnv(path.join(dir, 'home'))
  const run = (args, opts = {}) => runCli(args, { cwd: opts.cwd ?? ws, env: { ...env, ...opts.env }, input: opts.input })
  return { dir, ws, env, run, db: path.join(dir, 'home', 'dsh-memento', 'memory.db') }
}
