// A tiny validator for the JSON Schema subset our tool schemas use (type, enum, items,
// properties, required, additionalProperties). The harness validates tool output itself;
// this one validates tool *arguments* (raw definitions are not checked by the registry) and
// lets Node-only tests prove every output matches its declared schema.
const typeOk = (type, v) =>
  type === 'string' ? typeof v === 'string'
  : type === 'integer' ? Number.isInteger(v)
  : type === 'number' ? typeof v === 'number' && Number.isFinite(v)
  : type === 'boolean' ? typeof v === 'boolean'
  : type === 'null' ? v === null
  : type === 'array' ? Array.isArray(v)
  : type === 'object' ? v !== null && typeof v === 'object' && !Array.isArray(v)
  : true

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
