// The real provider (index.mjs over the native module). Without the addon the run fails with the
// loader's error, unless MEMENTO_SKIP_NATIVE=1 asks to skip the tests that need it.
import { NATIVE_BUILT, NATIVE_SKIP } from './faults/common.mjs'

export const NATIVE = NATIVE_BUILT
export const skip = NATIVE_SKIP
export const provider = NATIVE ? await import('../../index.mjs') : null
export const write = (id = 'test-session', header = {}) => ({ agent: { session: { id, header } } })
