// The public types (index.d.ts, written by hand for callers) against what the library really has
// (the MemoryProvider class of lib/provider.mjs, over the native core that native.d.ts, generated
// by napi from the Rust, declares) and what index.mjs really exports: a method added, renamed or
// dropped on one side, or a parameter added, fails here instead of in a caller's build.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import ts from 'typescript'
import { NATIVE_SKIP, ROOT } from './support/faults/common.mjs'

const skip = NATIVE_SKIP

/** Exported declarations of a .d.ts: functions and consts by name, and each class's members with their parameter counts. */
function declarations(file) {
  const source = ts.createSourceFile(file, fs.readFileSync(path.join(ROOT, file), 'utf8'), ts.ScriptTarget.Latest)
  const exported = (node) => node.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)
  const values = new Set()
  const classes = {}
  for (const node of source.statements) {
    if (!exported(node)) continue
    if (ts.isFunctionDeclaration(node)) values.add(node.name.text)
    if (ts.isVariableStatement(node)) for (const d of node.declarationList.declarations) values.add(d.name.text)
    if (ts.isClassDeclaration(node)) {
      values.add(node.name.text)
      classes[node.name.text] = Object.fromEntries(
        node.members
          .filter((m) => m.name && (ts.isMethodDeclaration(m) || ts.isGetAccessorDeclaration(m) || ts.isPropertyDeclaration(m)))
          // A getter and a readonly property read the same to a caller.
          .map((m) => [m.name.text, ts.isMethodDeclaration(m) ? m.parameters.length : 'property']),
      )
    }
  }
  return { values, classes }
}

test('index.d.ts declares the provider exactly as the library builds it: every method, its parameters', { skip }, async () => {
  const { MemoryProvider } = await import('../index.mjs')
  const proto = MemoryProvider.prototype
  const runtime = Object.fromEntries(
    Object.getOwnPropertyNames(proto)
      .filter((name) => name !== 'constructor')
      .map((name) => {
        const d = Object.getOwnPropertyDescriptor(proto, name)
        return [name, d.get ? 'property' : d.value.length]
      }),
  )
  const ours = declarations('index.d.ts').classes.MemoryProvider
  assert.ok(ours, 'index.d.ts declares MemoryProvider')
  assert.deepEqual(Object.keys(ours).sort(), Object.keys(runtime).sort(), 'the same methods and getters')
  for (const [name, params] of Object.entries(runtime)) assert.equal(ours[name], params, `${name}: parameter count`)
})

test('the native core is what lib/provider.mjs calls: its class and its rules, as napi declares them', () => {
  const native = declarations('native.d.ts')
  assert.deepEqual(Object.keys(native.classes.Native ?? {}).sort(), ['budgets', 'close', 'decide', 'path', 'preview', 'read', 'write'])
  assert.ok(native.values.has('rule'), 'the rules by name')
  const wrapper = fs.readFileSync(path.join(ROOT, 'lib/provider.mjs'), 'utf8')
  for (const call of ['write', 'preview', 'decide', 'read', 'budgets', 'close']) assert.ok(wrapper.includes(`#core.${call}(`), call)
})

test('index.d.ts declares every value index.mjs exports, and nothing it does not', { skip }, async () => {
  const runtime = Object.keys(await import('../index.mjs')).sort()
  const declared = [...declarations('index.d.ts').values].sort()
  assert.deepEqual(declared, runtime)
})
