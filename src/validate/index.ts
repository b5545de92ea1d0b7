/**
 * src/validate — the one validation toolkit. Its job: read untrusted JSON (scenario files, arrival
 * processes, fleets, request fields) so that every refusal is a ScenarioError naming the field's
 * path and the bound it broke, worded the same wherever the check runs; and describe each field
 * once (shape.ts), so that the same descriptions drive the checks (fields.ts) and the published
 * JSON Schema (schema.ts). It knows nothing of scenarios itself: their shapes live with their
 * validators (src/model/shape.ts, src/model/mmpp/shape.ts, src/fleet/shape.ts).
 */
export { at, describe, isAbsent, isObj, literal, rejectUnknown, reroot, underField, type Obj } from './values.js';
export { checkArray, checkNumber, checkObject, checkRoot, countValue, optionalNumber, readEnum, readList, readNumber, readObject, readString } from './fields.js';
export { anyOf, array, enumOf, fieldNames, lengthBounds, mapOf, number, object, string, type Field, type JsonSchema, type KeysOf, type NumberRule, type ObjectShape, type Wording } from './shape.js';
export { jsonNames, knownFields, protoName, renameProtoFields } from './names.js';
export { caselessPattern, documentSchema, toSchema, DRAFT_2020_12 } from './schema.js';
