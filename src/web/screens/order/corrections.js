// The order page's corrections (Sales and admins, while the server offers EDIT_DETAILS
// and CHANGE_DEPARTMENTS): its details and delivery needs, saved against the version the
// page read; a production department added. Removing one is a task move (REMOVE) on the
// page's task table.
import { gql } from "../../lib/graphql.js";
import { html, useState } from "../../lib/html.js";
import {
  Checkbox, Dialog, ErrorMessage, Field, FieldError, FormErrors, errorsFor, useId, useSubmit,
} from "../../lib/ui.js";

export const UPDATE_WORK_ORDER = gql`
  mutation UpdateWorkOrder($input: UpdateWorkOrderInput!) {
    updateWorkOrder(input: $input) { changed userErrors { code field message } }
  }
`;

export const ADD_DEPARTMENT = gql`
  mutation AddWorkOrderDepartment($input: AddWorkOrderDepartmentInput!) {
    addWorkOrderDepartment(input: $input) { workOrder { id } userErrors { code field message } }
  }
`;

export const REMOVE_DEPARTMENT = gql`
  mutation RemoveWorkOrderDepartment($input: RemoveWorkOrderDepartmentInput!) {
    removeWorkOrderDepartment(input: $input) { workOrder { id } userErrors { code field message } }
  }
`;

const NEEDS = [["needsInstallation", "Installation"], ["needsTransport", "Transport"], ["needsRepair", "Repair"]];

// Product, quantity and notes as the new-order form writes them; any other key of the
// details is kept as it is.
export function DetailsEditor({ order, onClose, onSaved }) {
  const details = order.details || {};
  const [product, setProduct] = useState(details.product ?? "");
  const [quantity, setQuantity] = useState(details.quantity == null ? "" : String(details.quantity));
  const [notes, setNotes] = useState(details.notes ?? "");
  const [needs, setNeeds] = useState(Object.fromEntries(NEEDS.map(([key]) => [key, order[key]])));
  const { errors, setErrors, failure, busy, submit: send } = useSubmit();

  async function submit(event) {
    event.preventDefault();
    const count = quantity.trim() ? Number(quantity) : null;
    if (count !== null && !(Number.isInteger(count) && count > 0)) {
      setErrors([{ field: "quantity", message: "Quantity must be a whole number above zero." }]);
      return;
    }
    const next = { ...details };
    for (const [key, value] of [["product", product.trim()], ["quantity", count], ["notes", notes.trim()]]) {
      if (value === null || value === "") delete next[key];
      else next[key] = value;
    }
    const input = { workOrderId: order.id, expectedVersion: order.version, details: next, ...needs };
    await send(UPDATE_WORK_ORDER, "updateWorkOrder", { input }, () => {
      onSaved();
      onClose();
    });
  }

  return html`<${Dialog} title=${"Edit details of " + order.orderNumber} onClose=${onClose}>
    <form onSubmit=${submit} novalidate>
      <${Field} label="Product" value=${product} onInput=${setProduct} />
      <${Field} label="Quantity" value=${quantity} onInput=${setQuantity} inputmode="numeric" class="short"
        error=${errorsFor(errors, "quantity")} />
      <${Field} label="Notes" type="textarea" rows="3" value=${notes} onInput=${setNotes}
        error=${errorsFor(errors, "details")} />
      <fieldset>
        <legend>Delivery needs</legend>
        ${NEEDS.map(([key, label]) => html`<${Checkbox} key=${key} label=${label} checked=${needs[key]}
          onChange=${(on) => setNeeds((now) => ({ ...now, [key]: on }))} />`)}
      </fieldset>
      <${FormErrors} errors=${errors} fields=${["quantity", "details"]} />
      <${ErrorMessage} error=${failure} />
      <div class="actions">
        <button type="submit" class="primary" aria-busy=${busy ? "true" : undefined}>Save details</button>
        <button type="button" onClick=${onClose}>Back</button>
      </div>
    </form>
  <//>`;
}

// The departments the server says the order can be given (addableDepartments).
export function DepartmentAdder({ order, onClose, onSaved }) {
  const choices = order.addableDepartments;
  const [code, setCode] = useState(choices.length ? choices[0].code : "");
  const { errors, failure, busy, submit: send } = useSubmit();
  const selectId = useId("department");
  const codeError = errorsFor(errors, "departmentCode");

  async function submit(event) {
    event.preventDefault();
    const input = { workOrderId: order.id, departmentCode: code, expectedVersion: order.version };
    await send(ADD_DEPARTMENT, "addWorkOrderDepartment", { input }, () => {
      onSaved(choices.find((d) => d.code === code).name);
      onClose();
    });
  }

  return html`<${Dialog} title=${"Add a department to " + order.orderNumber} onClose=${onClose}>
    <form onSubmit=${submit} novalidate>
      <p>Its task waits for the departments it follows; tasks that follow it and have not
        started wait for it.</p>
      <div class="field">
        <label for=${selectId}>Department</label>
        <select id=${selectId} value=${code} onChange=${(e) => setCode(e.currentTarget.value)}
          aria-invalid=${codeError ? "true" : undefined} aria-describedby=${codeError ? selectId + "-error" : undefined}>
          ${choices.map((d) => html`<option key=${d.code} value=${d.code}>${d.name}</option>`)}
        </select>
        <${FieldError} id=${selectId + "-error"} error=${codeError} />
      </div>
      <${FormErrors} errors=${errors} fields=${["departmentCode"]} />
      <${ErrorMessage} error=${failure} />
      <div class="actions">
        <button type="submit" class="primary" aria-busy=${busy ? "true" : undefined}>Add department</button>
        <button type="button" onClick=${onClose}>Back</button>
      </div>
    </form>
  <//>`;
}
