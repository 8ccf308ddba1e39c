// The layout of lib/ by job, read from the import statements: what the plugin, the CLI and the
// MCP server share lives in lib/ itself; lib/plugin/ is the Cordis wiring and lib/panel/ the web
// panel's routes, which only the plugin mounts. No module imports upward into them, the CLI and
// the MCP server reach none of their modules, and no import goes round in a circle.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('../', import.meta.url))
const rel = (f) => path.relative(ROOT, f).split(path.sep).join('/')

/** Every .mjs under `dir`. */
const modules = (dir) =>
  fs
    .readdirSync(path.join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((d) => d.isFile() && d.name.endsWith('.mjs'))
    .map((d) => rel(path.join(d.parentPath ?? d.path, d.name)))

/** The relative imports of a module (static, side-effect, re-exports and dynamic with a literal), as repository paths. */
function importsOf(file) {
  const src = fs.readFileSync(path.join(ROOT, file), 'utf8')
  const specs = [
    ...src.matchAll(/^\s*(?:import|export)\b[^'"]*?\bfrom\s+'(\.[^']+)'|^\s*import\s+'(\.[^']+)'|\bimport\(\s*'(\.[^']+)'\s*\)/gm),
  ].map((m) => m[1] ?? m[2] ?? m[3])
  return specs.map((s) => rel(path.resolve(path.dirname(path.join(ROOT, file)), s)))
}

const graph = new Map([...modules('lib'), ...modules('bin'), 'index.mjs'].map((f) => [f, importsOf(f)]))
/** Every module `from` reaches through its imports. */
function reach(from) {
  const seen = new Set()
  const walk = (f) => {
    for (const g of graph.get(f) ?? []) if (!seen.has(g)) (seen.add(g), walk(g))
  }
  walk(from)
  return seen
}
const inside = (f, dir) => f.startsWith(`${dir}/`)

test('no module imports lib/plugin/ or lib/panel/ except the plugin itself, which mounts the panel', () => {
  const wrong = []
  for (const [f, deps] of graph) {
    for (const d of deps) {
      if (inside(d, 'lib/plugin') && !inside(f, 'lib/plugin') && f !== 'index.mjs') wrong.push(`${f} -> ${d}`)
      if (inside(d, 'lib/panel') && !inside(f, 'lib/plugin') && !inside(f, 'lib/panel')) wrong.push(`${f} -> ${d}`)
    }
  }
  assert.deepEqual(wrong, [])
})

test('the CLI and the MCP server reach only the shared modules of lib/', () => {
  for (const from of ['bin/dsh-memento.mjs', ...modules('lib/mcp')]) {
    const reached = [...reach(from)].filter((f) => inside(f, 'lib/plugin') || inside(f, 'lib/panel') || f === 'index.mjs')
    assert.deepEqual(reached, [], from)
  }
})

test('no import circle', () => {
  const circles = [...graph.keys()].filter((f) => reach(f).has(f))
  assert.deepEqual(circles, [])
})

test('the graph is read: every import names a module that exists', () => {
  assert.ok(graph.get('lib/plugin/apply.mjs').includes('lib/panel/index.mjs'))
  for (const [f, deps] of graph) for (const d of deps) assert.ok(fs.existsSync(path.join(ROOT, d)), `${f} imports ${d}`)
})
