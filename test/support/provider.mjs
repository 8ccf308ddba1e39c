// The real provider (index.mjs over the native module). Tests that need it skip when the addon
// is not built; `npm test` builds it first.
import { NATIVE_BUILT } from './faults/common.mjs'

export const NATIVE = NATIVE_BUILT
export const skip = NATIVE ? false : 'native addon not built (npm run build)'
export const provider = NATIVE ? await import('../../index.mjs') : null
export const write = (id = 'test-session', header = {}) => ({ agent: { session: { id, header } } })
