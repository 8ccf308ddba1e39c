// Protocol errors raised on the JS side (adapters, envelopes, CLI argument checks).
// They have the same shape as the native ones: an `Error` whose `code` is a protocol error code,
// whose `message` is English, and whose `details` is a JSON-safe object.
import { native, RULES } from './native.mjs'

/**
 * Build a protocol error.
 * @param {import('../index.d.ts').ErrorCode} code stable protocol code, e.g. `'ADAPTER_PAYLOAD'`
 * @param {string} message English, human-readable
 * @param {Record<string, unknown>} [details] JSON-safe details (`{}` when there are none)
 * @returns {Error & {code: string, details: Record<string, unknown>}}
 */
export function memoryError(code, message, details = {}) {
  const err = new Error(message)
  err.name = 'MemoryError'
  err.code = code
  err.details = details
  return err
}

/** The protocol error codes (native and JS-side errors use only these), as the core lists them. */
export const ERROR_CODES = Object.freeze([...RULES.errorCodes])

/** True for a protocol error (native or JS-side): an `Error` with a protocol `code` and `details`. */
export function isMemoryError(e) {
  return e instanceof Error && ERROR_CODES.includes(e.code) && e.details !== null && typeof e.details === 'object'
}

/** `INVALID_INPUT` with the given message and no details. */
export function invalidInput(message, details = {}) {
  return memoryError('INVALID_INPUT', message, details)
}

/** `ADAPTER_NOT_FOUND`, in the core's words. */
export const adapterNotFound = (adapterId) => native.adapterError({ adapterId })

/**
 * `ADAPTER_PAYLOAD`, in the core's words: `adapter "<id>": [<file>: ][line N: |at <path>: ]<message>`,
 * details `{adapterId, file?, line?, path?}`.
 * @param {string} adapterId
 * @param {string} message
 * @param {{line?: number, path?: string, file?: string}} [where] location of the offending input
 */
export const adapterPayload = (adapterId, message, where = {}) => native.adapterError({ adapterId, message, ...where })
