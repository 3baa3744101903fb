// Admin: stale work. Tasks started and untouched for a long while (the server's staleTasks:
// their TASK_STALE timer fired), each with its work order and Release at hand.
import { gql } from "../../lib/graphql.js";
import { html, useState } from "../../lib/html.js";
import { Link } from "../../lib/router.js";
import { problems, useQuery } from "../../lib/data.js";
import { ReasonDialog } from "../../lib/forms.js";
import { ErrorMessage, Loading } from "../../lib/messages.js";
import { Time, duration } from "../../lib/ui.js";

export const STALE_TASKS = gql`
  query StaleTasks {
    staleTasks(first: 100) {
      edges {
        node {
          id startedAt allowedActions
          department { name }
          pickedUpBy { name }
          workOrder { id orderNumber jobLine customer { name } }
        }
      }
    }
  }
`;

export const RELEASE_STALE = gql`
  mutation ReleaseStale($input: ReleaseTaskInput!) {
    releaseTask(input: $input) { changed userErrors { code message } }
  }
`;

export function Stale() {
  const list = useQuery(STALE_TASKS);
  const [releasing, setReleasing] = useState(null);
  const [done, setDone] = useState("");

  async function release(reason) {
    const task = releasing;
    const found = await problems(RELEASE_STALE, "releaseTask", { taskId: task.id, reason });
    if (found) return found;
    setDone(`${task.workOrder.orderNumber}: ${task.department.name} released to its queue.`);
    list.refetch();
    return null;
  }

  const tasks = list.data ? list.data.staleTasks.edges.map((e) => e.node) : [];
  return html`
    <h2>Stale work</h2>
    <p class="hint">Tasks started and untouched for a long while: ask after them, or release them to their queue.
      Complete and Reopen of a task are on its work order’s page.</p>
    <${ErrorMessage} error=${list.error} />
    ${done ? html`<p class="message success" role="status"><span aria-hidden="true">✓ </span>${done}</p>` : null}
    ${!list.data
      ? html`<${Loading} />`
      : tasks.length
        ? html`<div class="table-wrap"><table>
            <thead><tr><th scope="col">Order</th><th scope="col">Department</th><th scope="col">Held by</th>
              <th scope="col">Started</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
            <tbody>${tasks.map((t) => html`<tr key=${t.id}>
              <th scope="row"><${Link} href=${"/orders/" + t.workOrder.id}>${t.workOrder.orderNumber}<//>
                <span class="hint"> ${t.workOrder.customer.name}${t.workOrder.jobLine ? " · " + t.workOrder.jobLine : ""}</span></th>
              <td>${t.department.name}</td>
              <td>${t.pickedUpBy ? t.pickedUpBy.name : "—"}</td>
              <td><${Time} iso=${t.startedAt} /> (${duration(t.startedAt)} ago)</td>
              <td>${t.allowedActions.includes("RELEASE")
                ? html`<button type="button" class="small" onClick=${() => setReleasing(t)}>Release</button>`
                : null}</td>
            </tr>`)}</tbody>
          </table></div>`
        : html`<p class="empty">Nothing stale.</p>`}
    ${releasing
      ? html`<${ReasonDialog} title=${`Release the ${releasing.department.name} task of ${releasing.workOrder.orderNumber}`}
          intro="The task goes back to its queue; whoever holds it stops." action="Release task"
          onConfirm=${release} onClose=${() => setReleasing(null)} />`
      : null}`;
}
