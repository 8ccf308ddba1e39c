// A tiny validator for the JSON Schema subset our tool schemas use (type, enum, items,
// properties, required, additionalProperties). The harness validates tool output itself;
// this one validates tool *arguments* (raw definitions are not checked by the registry) and
// lets Node-only tests prove every output matches its declared schema.
const TYPES = {
  string: (v) => typeof v === 'string',
  integer: (v) => Number.isInteger(v),
  number: (v) => typeof v === 'number' && Number.isFinite(v),
  boolean: (v) => typeof v === 'boolean',
  null: (v) => v === null,
  array: (v) => Array.isArray(v),
  object: (v) => v !== null && typeof v === 'object' && !Array.isArray(v),
}
/** Whether `v` is of JSON Schema type `type`; a type outside the subset accepts anything. */
const typeOk = (type, v) => (Object.hasOwn(TYPES, type) ? TYPES[type](v) : true)

export function validate(schema, value, path = 'value') {
  const out = []
  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? schema.type : [schema.type]
    if (!types.some((t) => typeOk(t, value))) {
      out.push(`${path} must be ${types.join('|')}`)
      return out
    }
  }
  if (schema.enum && !schema.enum.includes(value)) out.push(`${path} must be one of ${schema.enum.join(', ')}`)
  if (Array.isArray(value) && schema.items) value.forEach((v, i) => out.push(...validate(schema.items, v, `${path}[${i}]`)))
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    for (const key of schema.required ?? []) if (!(key in value)) out.push(`${path}.${key} is required`)
    for (const [key, v] of Object.entries(value)) {
      const sub = schema.properties?.[key]
      if (sub) out.push(...validate(sub, v, `${path}.${key}`))
      else if (schema.additionalProperties === false) out.push(`${path}.${key} is not allowed`)
    }
  }
  return out
}
