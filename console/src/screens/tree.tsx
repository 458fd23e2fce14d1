// The condition-tree editor (docs/console.md): `all` / `any` / `not` groups over `{ check, op, value }` comparisons, edited
// as a tree of form controls. The parent owns the tree; each node reports its replacement. The node the validator
// names (conditionProblem's `param`) is marked invalid.
import { CHECKS, type CheckType, type Comparison, type Condition, checkType, OPS, RISK_CATEGORIES } from "@tessera/sdk/contract";
import { t } from "../i18n/index.js";
import { Field } from "../ui.js";

const CHECK_NAMES = [...Object.keys(CHECKS), ...RISK_CATEGORIES.flatMap((r) => [`risk.${r}.score`, `risk.${r}.severity`])];

type Group = "all" | "any" | "not";
const groupOf = (c: Condition): Group | undefined => ("all" in c ? "all" : "any" in c ? "any" : "not" in c ? "not" : undefined);
const childrenOf = (c: Condition): Condition[] => ("all" in c ? c.all : "any" in c ? c.any : "not" in c ? [c.not] : []);

function makeGroup(g: Group, kids: Condition[]): Condition {
  if (g === "not") return { not: kids[0] ?? { all: [] } };
  return g === "all" ? { all: kids } : { any: kids };
}

export const newComparison = (): Comparison => ({ check: "ip_is_tor", op: "eq", value: true });

/** The value as typed text → the value of the check's type for the operator. */
function parseValue(type: CheckType | undefined, op: string, text: string): Comparison["value"] {
  const scalar = (s: string) => (type === "number" ? Number(s) : type === "boolean" ? s === "true" : s);
  if (op === "in" || op === "not_in")
    return text
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean)
      .map(scalar) as (string | number)[];
  if (op === "in_list" || op === "not_in_list") {
    const ids = text
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
    return ids.length === 1 ? ids[0] : ids;
  }
  if (op === "exists") return text !== "false";
  if (text === "" && type !== "string") return undefined;
  return scalar(text) as Comparison["value"];
}

const showValue = (v: Comparison["value"]) => (Array.isArray(v) ? v.join(", ") : v === undefined || v === null ? "" : String(v));

function ComparisonRow({ c, at, bad, onChange }: { c: Comparison; at: string; bad?: string; onChange: (c: Comparison) => void }) {
  const m = t.value.editor;
  const type = checkType(c.check);
  const boolValue = c.op === "exists" || (type === "boolean" && (c.op === "eq" || c.op === "ne"));
  const invalid = (part: string) => (bad === `${at}.${part}` ? true : undefined);
  return (
    <div class="comparison" data-path={at}>
      <Field label={m.check}>
        {(id) => (
          <select
            id={id}
            aria-invalid={invalid("check")}
            value={c.check}
            onChange={(e) => {
              const check = e.currentTarget.value;
              const nt = checkType(check);
              onChange({ check, op: c.op, value: nt === "boolean" ? true : nt === "number" ? 0 : "" });
            }}
          >
            {!CHECK_NAMES.includes(c.check) && <option value={c.check}>{c.check}</option>}
            {CHECK_NAMES.map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label={m.op}>
        {(id) => (
          <select
            id={id}
            aria-invalid={invalid("op")}
            value={c.op}
            onChange={(e) => onChange({ ...c, op: e.currentTarget.value as Comparison["op"] })}
          >
            {OPS.map((o) => (
              <option key={o} value={o}>
                {o}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label={m.value}>
        {(id) =>
          boolValue ? (
            <select
              id={id}
              aria-invalid={invalid("value")}
              value={String(c.value ?? true)}
              onChange={(e) => onChange({ ...c, value: e.currentTarget.value === "true" })}
            >
              <option value="true">true</option>
              <option value="false">false</option>
            </select>
          ) : (
            <input
              id={id}
              dir="ltr"
              aria-invalid={invalid("value")}
              inputMode={type === "number" && !c.op.includes("in") ? "decimal" : undefined}
              value={showValue(c.value)}
              onInput={(e) => onChange({ ...c, value: parseValue(type, c.op, e.currentTarget.value) })}
            />
          )
        }
      </Field>
    </div>
  );
}

export function ConditionNode({
  cond,
  at,
  bad,
  onChange,
  onRemove,
}: {
  cond: Condition;
  at: string;
  bad?: string;
  onChange: (c: Condition) => void;
  onRemove?: () => void;
}) {
  const m = t.value.editor;
  const group = groupOf(cond);
  const remove = onRemove && (
    <button type="button" class="link" onClick={onRemove}>
      {m.removeNode}
    </button>
  );
  if (!group)
    return (
      <li class={bad?.startsWith(at) ? "node invalid" : "node"}>
        <ComparisonRow c={cond as Comparison} at={at} bad={bad} onChange={onChange} />
        {remove}
      </li>
    );
  const kids = childrenOf(cond);
  const childAt = (i: number) => (group === "not" ? `${at}.not` : `${at}.${group}.${i}`);
  const setKid = (i: number, c: Condition) =>
    onChange(
      makeGroup(
        group,
        kids.map((k, j) => (j === i ? c : k)),
      ),
    );
  return (
    <li class={bad === at ? "node group invalid" : "node group"} data-path={at}>
      <div class="group-head">
        <Field label={m.groupType}>
          {(id) => (
            <select id={id} value={group} onChange={(e) => onChange(makeGroup(e.currentTarget.value as Group, kids))}>
              {(["all", "any", "not"] as const).map((g) => (
                <option key={g} value={g}>
                  {m.group[g]}
                </option>
              ))}
            </select>
          )}
        </Field>
        {remove}
      </div>
      <ul class="tree">
        {kids.map((k, i) => (
          <ConditionNode
            key={i}
            cond={k}
            at={childAt(i)}
            bad={bad}
            onChange={(c) => setKid(i, c)}
            onRemove={
              group === "not"
                ? undefined
                : () =>
                    onChange(
                      makeGroup(
                        group,
                        kids.filter((_, j) => j !== i),
                      ),
                    )
            }
          />
        ))}
      </ul>
      {group !== "not" && (
        <div class="actions">
          <button type="button" class="secondary" onClick={() => onChange(makeGroup(group, [...kids, newComparison()]))}>
            {m.addCondition}
          </button>
          <button type="button" class="secondary" onClick={() => onChange(makeGroup(group, [...kids, { all: [newComparison()] }]))}>
            {m.addGroup}
          </button>
        </div>
      )}
    </li>
  );
}
