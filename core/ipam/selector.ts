/**
 * The selectors of an injection rule as `validateIpamConfig` reads them: `matchIdentities`,
 * `matchPurposes`, `matchLabels` and `matchExpressions`.
 *
 * Refused: what is not a list or map where one belongs, unknown operators (naming the closest
 * known one), values where the operator takes none and none where it needs some.
 *
 * @module
 */
import { type Check, isObj, type Obj, typeName } from "./configCheck.ts"
import {
  type ClusterSelector,
  closest,
  LABEL_OPERATORS,
  type LabelOperator,
  type LabelRequirement,
  type ObjectReference,
  PURPOSE_OPERATORS,
  type PurposeOperator,
  type PurposeRequirement,
} from "./configModel.ts"

/** `matchIdentities`: absent or null disables it (undefined); an empty list is kept. */
const parseIdentities = (r: Obj, rp: string, check: Check): Array<ObjectReference> | undefined => {
  const { err, strict } = check
  let matchIdentities: Array<ObjectReference> | undefined
  if (r.matchIdentities !== undefined && r.matchIdentities !== null) {
    if (!Array.isArray(r.matchIdentities))
      err(`${rp}.matchIdentities`, `must be a list, got ${typeName(r.matchIdentities)}`)
    else {
      const identities: Array<ObjectReference> = []
      matchIdentities = identities
      r.matchIdentities.forEach((m, i) => {
        const p = `${rp}.matchIdentities[${i}]`
        if (!isObj(m)) {
          err(p, `must be an object, got ${typeName(m)}`)
          return
        }
        strict(m, p, ["name", "namespace"])
        if (typeof m.name !== "string" || m.name === "") err(`${p}.name`, "is required")
        if (typeof m.namespace !== "string" || m.namespace === "") err(`${p}.namespace`, "is required")
        // what is pushed for a missing name or namespace is never seen: that config has errors
        identities.push({ name: String(m.name), namespace: String(m.namespace) })
      })
    }
  }
  return matchIdentities
}

/** `matchPurposes`: a list of `{operator, values}` with a known operator. */
const parsePurposes = (r: Obj, rp: string, check: Check): Array<PurposeRequirement> => {
  const { err, strict, strings } = check
  const matchPurposes: Array<PurposeRequirement> = []
  if (r.matchPurposes !== undefined && r.matchPurposes !== null) {
    if (!Array.isArray(r.matchPurposes))
      err(`${rp}.matchPurposes`, `must be a list, got ${typeName(r.matchPurposes)}`)
    else
      r.matchPurposes.forEach((m, i) => {
        const p = `${rp}.matchPurposes[${i}]`
        if (!isObj(m)) {
          err(p, `must be an object, got ${typeName(m)}`)
          return
        }
        strict(m, p, ["operator", "values"])
        const op = m.operator
        if (!PURPOSE_OPERATORS.includes(op as PurposeOperator)) {
          err(
            `${p}.operator`,
            `${JSON.stringify(op)} is not one of ${PURPOSE_OPERATORS.join(", ")}${typeof op === "string" ? `; did you mean "${closest(op, PURPOSE_OPERATORS)}"?` : ""}`,
          )
        }
        matchPurposes.push({ operator: op as PurposeOperator, values: strings(m.values, `${p}.values`) })
      })
  }
  return matchPurposes
}

/** `matchLabels`: a map of strings. */
const parseLabels = (r: Obj, rp: string, check: Check): Record<string, string> => {
  const { err } = check
  const matchLabels: Record<string, string> = {}
  if (r.matchLabels !== undefined && r.matchLabels !== null) {
    if (!isObj(r.matchLabels))
      err(`${rp}.matchLabels`, `must be a map of strings, got ${typeName(r.matchLabels)}`)
    else
      for (const [k, v] of Object.entries(r.matchLabels)) {
        if (typeof v !== "string") err(`${rp}.matchLabels.${k}`, `must be a string, got ${typeName(v)}`)
        else matchLabels[k] = v
      }
  }
  return matchLabels
}

/** `matchExpressions`: `{key, operator, values}`, values required for In/NotIn and forbidden for Exists/DoesNotExist. */
const parseExpressions = (r: Obj, rp: string, check: Check): Array<LabelRequirement> => {
  const { err, strict, strings } = check
  const matchExpressions: Array<LabelRequirement> = []
  if (r.matchExpressions !== undefined && r.matchExpressions !== null) {
    if (!Array.isArray(r.matchExpressions))
      err(`${rp}.matchExpressions`, `must be a list, got ${typeName(r.matchExpressions)}`)
    else
      r.matchExpressions.forEach((m, i) => {
        const p = `${rp}.matchExpressions[${i}]`
        if (!isObj(m)) {
          err(p, `must be an object, got ${typeName(m)}`)
          return
        }
        strict(m, p, ["key", "operator", "values"])
        if (typeof m.key !== "string" || m.key === "") err(`${p}.key`, "is required")
        const op = m.operator as LabelOperator
        const values = strings(m.values, `${p}.values`)
        if (!LABEL_OPERATORS.includes(op)) {
          err(
            `${p}.operator`,
            `${JSON.stringify(m.operator)} is not one of ${LABEL_OPERATORS.join(", ")}${typeof m.operator === "string" ? `; did you mean "${closest(m.operator, LABEL_OPERATORS)}"?` : ""}`,
          )
        } else if ((op === "In" || op === "NotIn") && values.length === 0) {
          err(`${p}.values`, `must not be empty for operator ${op}`)
        } else if ((op === "Exists" || op === "DoesNotExist") && values.length > 0) {
          err(`${p}.values`, `must be empty for operator ${op}`)
        }
        matchExpressions.push({ key: String(m.key), operator: op, values })
      })
  }
  return matchExpressions
}

/** The selector fields of the rule `r` at `rp`, recording every issue. */
export const parseSelector = (r: Obj, rp: string, check: Check): ClusterSelector => ({
  matchIdentities: parseIdentities(r, rp, check),
  matchPurposes: parsePurposes(r, rp, check),
  matchLabels: parseLabels(r, rp, check),
  matchExpressions: parseExpressions(r, rp, check),
})
