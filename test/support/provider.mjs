// Test seam: the real provider (index.mjs over the native module) when it is built, else the
// JSON-file fake. `PROVIDER_MODULE` is what the CLI should load via $DSH_MEMENTO_PROVIDER.
import fs from 'node:fs'
import { fileURLToPath, pathToFileURL } from 'node:url'

const root = fileURLToPath(new URL('../../', import.meta.url))
// MEMENTO_TEST_PROVIDER=fake forces the fake (to check the tests themselves without a build).
export const NATIVE = process.env.MEMENTO_TEST_PROVIDER !== 'fake' && fs.existsSync(`${root}memento.linux-x64-gnu.node`) && fs.existsSync(`${root}index.mjs`)
export const PROVIDER_MODULE = NATIVE ? `${root}index.mjs` : fileURLToPath(new URL('./fake-provider.mjs', import.meta.url))
export const provider = await import(pathToFileURL(PROVIDER_MODULE).href)
export const write = (id = 'test-session', header = {}) => ({ agent: { session: { id, header } } })
export const allow = async () => 'allowed-once'
