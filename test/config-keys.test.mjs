// The plugin config's keys are the core's (`resolveConfig({})` returns every key with its
// default); the Cordis `Config` schema (lib/config.mjs) declares them again for dsh's settings
// UI. This checks that declaration against the core, every key at every depth and both ways, so
// a key added, renamed or dropped on one side fails here.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { makeConfigSchema } from '../lib/config.mjs'
import { native } from '../lib/native.mjs'

/**
 * A stand-in for the Schemastery peer that records the schema it is asked to build: each
 * builder returns a node, and each chained call (`default`, `description`, `min`) a copy.
 */
function recordingSchema() {
  const node = (kind, fields = {}) => {
    const n = { kind, ...fields }
    const chain = (name) => (value) => node(kind, { ...fields, ...(name === 'default' ? { def: value } : {}) })
    for (const name of ['default', 'description', 'min', 'max']) Object.defineProperty(n, name, { value: chain(name), enumerable: false })
    return n
  }
  return {
    object: (dict) => node('object', { dict }),
    dict: (inner) => node('dict', { inner }),
    union: (options) => node('union', { options }),
    const: (value) => node('const', { value }),
    boolean: () => node('boolean'),
    string: () => node('string'),
    number: () => node('number'),
    natural: () => node('natural'),
  }
}

/** `[path, node]` of every key an object schema declares, at every depth. */
const schemaKeys = (n, at = '') =>
  n.kind === 'object' ? Object.entries(n.dict).flatMap(([k, v]) => [[`${at}${k}`, v], ...schemaKeys(v, `${at}${k}.`)]) : []
/** `[path, value]` of every key of a resolved config, at every depth (a map such as `writePolicies` is one key). */
const configKeys = (o, at = '') =>
  Object.entries(o).flatMap(([k, v]) => [
    [`${at}${k}`, v],
    ...(v && typeof v === 'object' && !Array.isArray(v) ? configKeys(v, `${at}${k}.`) : []),
  ])

test('the Config schema declares exactly the keys the core resolves, at every depth, with its defaults', () => {
  const schema = makeConfigSchema(recordingSchema())
  assert.equal(schema.kind, 'object', 'the Schemastery schema was built (not the fallback)')
  const declared = new Map(schemaKeys(schema))
  const resolved = new Map(configKeys(native.resolveConfig({})))
  assert.deepEqual(
    [...declared.keys()].filter((k) => !resolved.has(k)),
    [],
    'keys the schema declares and the core does not resolve',
  )
  assert.deepEqual(
    [...resolved.keys()].filter((k) => !declared.has(k)),
    [],
    'keys the core resolves and the schema does not declare',
  )
  for (const [key, n] of declared) if ('def' in n) assert.deepEqual(n.def, resolved.get(key), `${key}: the default`)
})
