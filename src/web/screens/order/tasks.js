// The order page's task table: each task's row, what waits behind its gate, and the
// office's moves on it (those the server offers in its allowedActions), each with a reason.
import { gql } from "../../lib/graphql.js";
import { html } from "../../lib/html.js";
import { Badge, Time } from "../../lib/ui.js";
import { REMOVE_DEPARTMENT } from "./corrections.js";

export const RELEASE_TASK = gql`
  mutation ReleaseTask($input: ReleaseTaskInput!) {
    releaseTask(input: $input) { changed task { id status } userErrors { code message } }
  }
`;

export const COMPLETE_TASK = gql`
  mutation CompleteTask($input: CompleteTaskInput!) {
    completeTask(input: $input) { changed task { id status } userErrors { code message } }
  }
`;

export const REOPEN_TASK = gql`
  mutation ReopenTask($input: ReopenTaskInput!) {
    reopenTask(input: $input) { changed task { id status } userErrors { code message } }
  }
`;

// The office's moves on a task, by the name the server gives them in its allowedActions;
// each with what it did, in words.
const byTask = (task, reason) => ({ taskId: task.id, reason });
export const ADMIN_MOVES = {
  RELEASE: { label: "Release", action: "Release task", done: "released", mutation: RELEASE_TASK,
    field: "releaseTask", input: byTask,
    intro: "The task goes back to the queue; whoever holds it stops." },
  OVERRIDE_COMPLETE: { label: "Complete", action: "Complete task", done: "completed", mutation: COMPLETE_TASK,
    field: "completeTask", input: byTask,
    intro: "Marks the task done without its department finishing it (an override)." },
  REOPEN: { label: "Reopen", action: "Reopen task", done: "reopened", mutation: REOPEN_TASK,
    field: "reopenTask", input: byTask,
    intro: "The task goes back to its queue to be done again." },
  REMOVE: { label: "Remove", action: "Remove from work order", done: "removed from the work order",
    mutation: REMOVE_DEPARTMENT, field: "removeWorkOrderDepartment",
    input: (task, reason, order) => ({ workOrderId: order.id, departmentCode: task.department.code, reason }),
    intro: "The task leaves the work order (it stays in the history); what waited for it waits no more." },
};

// The admin moves the server offers on a task now (its allowedActions).
export function adminMoves(task) {
  return task.allowedActions.filter((action) => action in ADMIN_MOVES);
}

// "In queue since": when it joined its queue. Whether it is in it is the server's to say
// (inQueue); one that is not, and not done, waits behind its gate for what waitingFor
// names and the customer's approval of the proof (awaitsProof), or for nothing: it left
// every queue (a cancelled or held order, a removed task).
function QueuedSince({ task }) {
  if (task.inQueue || task.completedAt) return html`<${Time} iso=${task.availableAt} />`;
  const names = task.waitingFor.map((d) => d.name);
  if (task.awaitsProof) names.push("the customer's approval of the proof");
  return html`<span>${names.length ? `Not yet: waits for ${names.join(", ")}` : "Not queued"}</span>`;
}

export function TaskRow({ task, cancelled, admin, onMove }) {
  const moves = adminMoves(task);
  return html`<tr data-task-id=${task.id}>
    <th scope="row">${task.department.name}</th>
    <td><${Badge} status=${cancelled && !task.completedAt ? "CANCELLED" : task.status} /></td>
    <td>${task.pickedUpBy ? task.pickedUpBy.name : "—"}</td>
    <td><${QueuedSince} task=${task} /></td>
    <td><${Time} iso=${task.startedAt} /></td>
    <td><${Time} iso=${task.completedAt} /></td>
    ${admin
      ? html`<td><div class="row-actions">
          ${moves.map((move) => html`<button type="button" class="small" key=${move}
            aria-label=${ADMIN_MOVES[move].label + " " + task.department.name + " task"}
            onClick=${() => onMove(task, move)}>${ADMIN_MOVES[move].label}</button>`)}
          ${moves.length ? null : html`<span class="empty">None</span>`}
        </div></td>`
      : null}
  </tr>`;
}
