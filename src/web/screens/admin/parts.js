// What the admin's screens share: a paged list that takes a mutation's answer, and a
// fieldset of department checkboxes.
import { html } from "../../lib/html.js";
import { usePages } from "../../lib/data.js";
import { Checkbox, FieldError } from "../../lib/forms.js";
import { useId } from "../../lib/ui.js";

// A list of `field` a page at a time; `update` merges a mutation's answer (a node with
// its id) into the row it changed.
export function useList(query, field) {
  const list = usePages(query, {}, (data) => data[field]);
  return {
    ...list,
    update(node) {
      list.mapNodes((shown) => (shown.id === node.id ? { ...shown, ...node } : shown));
    },
  };
}

export function DepartmentChecks({ departments, chosen, onChange, legend, error }) {
  const errorId = useId("departments-error");
  return html`<fieldset aria-describedby=${error ? errorId : undefined}>
    <legend>${legend}</legend>
    <div class="checks">
      ${departments.map((d) => html`<${Checkbox} key=${d.code} label=${d.name} checked=${chosen.includes(d.code)}
        onChange=${(on) => onChange(on ? [...chosen, d.code] : chosen.filter((c) => c !== d.code))} />`)}
    </div>
    <${FieldError} id=${errorId} error=${error} />
  </fieldset>`;
}

