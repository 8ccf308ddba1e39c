// The JS dsh-memento — the plugin our users switch from — behind the factory contract of
// conformance/provider.mjs, so bench/worker.mjs measures it exactly as it measures ours. It is
// loaded from its own unmodified tree, never copied: run.mjs finds the tree and a Node >= 22.19
// (it needs `node:sqlite`) and passes the tree as $MEMENTO_JS_PLUGIN.
import path from 'node:path'
import { pathToFileURL } from 'node:url'

const tree = process.env.MEMENTO_JS_PLUGIN
if (!tree) throw new Error('MEMENTO_JS_PLUGIN is not set: run the JS side through bench/run.mjs')
const load = (file) => import(pathToFileURL(path.join(tree, 'lib', file)).href)
const { openMemoryStore } = await load('store.mjs')
const { MemoryProtocolCore } = await load('protocol.mjs')

/** The factory: the JS plugin's protocol core over its own store. */
export function makeProvider({ dbPath, budgets, gate }) {
  const store = openMemoryStore(dbPath)
  const core = new MemoryProtocolCore({ store, budgets, gate, writePolicy: 'ask' })
  return {
    add: (input, write) => core.add(input, write),
    replace: (input, write) => core.replace(input, write),
    remove: (input, write) => core.remove(input, write),
    consolidate: (input, write) => core.consolidate(input, write),
    seed: (inputs, write) => core.seed(inputs, write),
    query: (filter, opts) => core.query(filter, opts),
    budgets: () => core.budgets(),
    listEntries: () => store.listEntries(),
    auditList: (limit) => store.auditList(limit),
    close: () => store.close(),
  }
}
