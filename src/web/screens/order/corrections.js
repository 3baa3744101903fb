// The order page's corrections (Sales and admins, while the server offers EDIT_DETAILS
// and CHANGE_DEPARTMENTS): its details and delivery needs, saved against the version the
// page read; a production department added. Removing one is a task move (REMOVE) on the
// page's task table.
import { gql } from "../../lib/graphql.js";
import { html, useState } from "../../lib/html.js";
import { useSubmit } from "../../lib/data.js";
import { Checkbox, FieldError, FormErrors, errorsFor } from "../../lib/forms.js";
import { ErrorMessage } from "../../lib/messages.js";
import { Dialog, useId } from "../../lib/ui.js";
import { JobFields, jobInput, jobValues } from "./job.js";

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

// The job's fields as the new-order form asks for them (WorkOrder.job): saved as the job
// whole; the shop's other details stay as they are.
export function DetailsEditor({ order, onClose, onSaved }) {
  const [job, setJob] = useState(jobValues(order.job));
  const [needs, setNeeds] = useState(Object.fromEntries(NEEDS.map(([key]) => [key, order[key]])));
  const { errors, failure, busy, submit: send } = useSubmit();

  async function submit(event) {
    event.preventDefault();
    const input = { workOrderId: order.id, expectedVersion: order.version, job: jobInput(job), ...needs };
    await send(UPDATE_WORK_ORDER, "updateWorkOrder", { input }, () => {
      onSaved();
      onClose();
    });
  }

  return html`<${Dialog} title=${"Edit details of " + order.orderNumber} onClose=${onClose}>
    <form onSubmit=${submit} novalidate>
      <${JobFields} values=${job} onChange=${setJob} errors=${errors} />
      <fieldset>
        <legend>Delivery needs</legend>
        ${NEEDS.map(([key, label]) => html`<${Checkbox} key=${key} label=${label} checked=${needs[key]}
          onChange=${(on) => setNeeds((now) => ({ ...now, [key]: on }))} />`)}
      </fieldset>
      <${FormErrors} errors=${errors} fields=${["job", "details"]} />
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
