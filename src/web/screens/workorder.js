// One work order: its tasks, the delivery gate, its whole history as a timeline, live
// through workOrderEvents. Sales and admins edit the quote and cancel; admins release,
// complete and reopen tasks, each with a reason.
import { gql } from "../lib/graphql.js";
import { follow } from "../lib/live.js";
import { html, useEffect, useRef, useState } from "../lib/html.js";
import { Link } from "../lib/router.js";
import { rolesOf, transport } from "../lib/session.js";
import {
  Badge,
  Checkbox,
  Dialog,
  ErrorMessage,
  Field,
  LiveStatus,
  Loading,
  ReasonDialog,
  Time,
  TimeBadges,
  dueText,
  errorsFor,
  balances,
  messageOf,
  money,
  request,
  useTitle,
} from "../lib/ui.js";

export const WORK_ORDER_PAGE = gql`
  query WorkOrderPage($id: ID!, $seesQuote: Boolean!, $seesLedger: Boolean!) {
    workOrder(id: $id) {
      id orderNumber status version createdAt updatedAt jobLine details allowedActions
      needsInstallation needsTransport needsRepair dueAt priority isLate
      hold { reason since by { name } }
      customer { id name }
      createdBy { name }
      quote @include(if: $seesQuote) { amount currency }
      charged @include(if: $seesLedger) { amount currency }
      paid @include(if: $seesLedger) { amount currency }
      tasks {
        id status availableAt startedAt completedAt allowedActions
        department { code name kind gatesDelivery }
        waitingFor { name }
        pickedUpBy { name }
        history { action fromStatus toStatus reason occurredAt actor { name } }
      }
      deliveryTask { id availableAt }
      history { action fromState toState reason occurredAt actor { name } }
    }
  }
`;

export const WORK_ORDER_EVENTS = gql`
  subscription WorkOrderLive($id: ID!, $after: String) {
    workOrderEvents(workOrderId: $id, after: $after) { cursor kind occurredAt }
  }
`;

export const EDIT_QUOTE = gql`
  mutation EditQuote($input: UpdateWorkOrderQuoteInput!) {
    updateWorkOrderQuote(input: $input) {
      workOrder { id version quote { amount currency } }
      userErrors { code field message }
    }
  }
`;

// On STALE_OBJECT: the quote and version someone else saved.
export const CURRENT_QUOTE = gql`
  query CurrentQuote($id: ID!) {
    workOrder(id: $id) { id version quote { amount currency } }
  }
`;

export const CANCEL_WORK_ORDER = gql`
  mutation CancelWorkOrder($input: CancelWorkOrderInput!) {
    cancelWorkOrder(input: $input) {
      workOrder { id status }
      userErrors { code field message }
    }
  }
`;

export const RESCHEDULE = gql`
  mutation Reschedule($input: RescheduleWorkOrderInput!) {
    rescheduleWorkOrder(input: $input) { changed userErrors { code field message } }
  }
`;

export const HOLD = gql`
  mutation Hold($input: HoldWorkOrderInput!) {
    holdWorkOrder(input: $input) { changed userErrors { code field message } }
  }
`;

export const RESUME = gql`
  mutation Resume($input: ResumeWorkOrderInput!) {
    resumeWorkOrder(input: $input) { changed userErrors { code field message } }
  }
`;

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

// The admin moves, by the name the server gives them in a task's allowedActions.
const ADMIN_MOVES = {
  RELEASE: { label: "Release", action: "Release task", mutation: RELEASE_TASK, field: "releaseTask",
    intro: "The task goes back to the queue; whoever holds it stops." },
  OVERRIDE_COMPLETE: { label: "Complete", action: "Complete task", mutation: COMPLETE_TASK, field: "completeTask",
    intro: "Marks the task done without its department finishing it (an override)." },
  REOPEN: { label: "Reopen", action: "Reopen task", mutation: REOPEN_TASK, field: "reopenTask",
    intro: "The task goes back to its queue to be done again." },
};

const TASK_MOVES = {
  START: "started",
  FINISH: "finished",
  RELEASE: "released (back to the queue)",
  OVERRIDE_COMPLETE: "completed by an admin",
  REOPEN: "reopened",
};

// The server writes NONE for "no quote" on either side of a change.
const NO_QUOTE = "NONE";

// The server writes quotes as "12500.00 EUR"; shown grouped like every other amount.
function quoteText(text) {
  const found = /^(\S+) ([A-Z]{3})$/.exec(text);
  return found ? money({ amount: found[1], currency: found[2] }) : text;
}

function quoteMove(rawFrom, rawTo) {
  const from = quoteText(rawFrom);
  const to = quoteText(rawTo);
  if (from === NO_QUOTE && to === NO_QUOTE) return "Quote unchanged (none)";
  if (from === NO_QUOTE) return `Quote set to ${to}`;
  if (to === NO_QUOTE) return `Quote removed (was ${from})`;
  return `Quote changed from ${from} to ${to}`;
}

function orderMove(entry) {
  switch (entry.action) {
    case "COMPLETE": return "Work order completed";
    case "REACTIVATE": return "Work order active again";
    case "CANCEL": return "Work order cancelled";
    case "OPEN_GATE": return "Delivery gate opened";
    case "CLOSE_GATE": return "Delivery gate closed";
    case "QUOTE_CHANGED": return quoteMove(entry.fromState, entry.toState);
    case "SCHEDULE_CHANGED": return `Rescheduled from ${entry.fromState} to ${entry.toState}`;
    case "HELD": return "Put on hold";
    case "RESUMED": return "Resumed";
    default: return `${entry.action}: ${entry.fromState} → ${entry.toState}`;
  }
}

// Status and gate moves of the order, and every move of its tasks, oldest first.
function timeline(order) {
  // At the same instant a task's move comes first: it is what opened the gate or
  // completed the order.
  const entries = [{ at: order.createdAt, rank: 0, what: "Work order created", who: order.createdBy && order.createdBy.name }];
  order.tasks.forEach((task) => task.history.forEach((h) => entries.push({
    at: h.occurredAt,
    rank: 1,
    what: `${task.department.name}: ${TASK_MOVES[h.action] || h.action.toLowerCase()}`,
    who: h.actor.name,
    reason: h.reason,
  })));
  order.history.forEach((h) => entries.push({
    at: h.occurredAt, rank: 2, what: orderMove(h), who: h.actor && h.actor.name, reason: h.reason,
  }));
  return entries
    .map((entry, index) => ({ ...entry, index }))
    .sort((a, b) => Date.parse(a.at) - Date.parse(b.at) || a.rank - b.rank || a.index - b.index);
}

function Gate({ order }) {
  const delivery = order.tasks.find((t) => t.id === order.deliveryTask.id);
  const open = Boolean(order.deliveryTask.availableAt);
  // Which departments the gate waits for is the server's to say.
  const waitingFor = delivery ? delivery.waitingFor.map((d) => d.name) : [];
  const cancelled = order.status === "CANCELLED";
  const delivered = Boolean(delivery && delivery.completedAt);
  let state;
  if (cancelled) {
    state = delivered
      ? html`<strong>Cancelled</strong>: the work order was cancelled after delivery was done.`
      : html`<strong>Cancelled</strong>: the work order was cancelled, so there is no delivery.`;
  } else if (open) {
    state = html`<strong>Open</strong> since <${Time} iso=${order.deliveryTask.availableAt} />: ${delivery ? delivery.department.name : "delivery"} can start.`;
  } else {
    state = html`<strong>Closed</strong>: waiting for ${waitingFor.length ? waitingFor.join(", ") : "production"}.`;
  }
  return html`<section aria-labelledby="gate-heading" class="panel">
    <h2 id="gate-heading">Delivery gate</h2>
    <p class=${"gate " + (cancelled ? "cancelled" : open ? "open" : "closed")}>
      <span aria-hidden="true">${cancelled ? "✕ " : open ? "▶ " : "■ "}</span>
      ${state}
    </p>
    <p class="flags">
      ${[["needsInstallation", "Installation"], ["needsTransport", "Transport"], ["needsRepair", "Repair"]]
        .map(([key, label]) => html`<span class="flag">${label}: ${order[key] ? "yes" : "no"}</span>`)}
    </p>
  </section>`;
}

// A details key as a label: "product" -> "Product", "paperType"/"paper_type" -> "Paper type".
// Acronyms ("SKU") stay as they are.
function detailLabel(key) {
  const words = key.replace(/([a-z0-9])([A-Z])/g, "$1 $2").split(/[\s_-]+/).filter(Boolean)
    .map((w) => (w.length > 1 && w === w.toUpperCase() ? w : w.toLowerCase()));
  if (!words.length) return key;
  const text = words.join(" ");
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function Details({ details }) {
  const entries = Object.entries(details || {});
  if (!entries.length) return html`<p class="empty">No details.</p>`;
  return html`<dl class="details">
    ${entries.map(([key, value]) => html`<div key=${key}><dt>${detailLabel(key)}</dt>
      <dd>${typeof value === "object" && value !== null ? JSON.stringify(value) : String(value)}</dd></div>`)}
  </dl>`;
}

// "2026-12-10T17:00" in the browser's time, as a datetime-local input wants it.
function localInput(iso) {
  if (!iso) return "";
  const d = new Date(iso);
  const pad = (n) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

function Rescheduler({ order, onClose, onSaved }) {
  const [due, setDue] = useState(localInput(order.dueAt));
  const [rush, setRush] = useState(order.priority === "RUSH");
  const [errors, setErrors] = useState([]);
  const [failure, setFailure] = useState(null);
  const [busy, setBusy] = useState(false);

  async function submit(event) {
    event.preventDefault();
    setBusy(true);
    setErrors([]);
    setFailure(null);
    try {
      const { rescheduleWorkOrder: result } = await request(RESCHEDULE, {
        input: {
          workOrderId: order.id,
          dueAt: due ? new Date(due).toISOString() : null,
          priority: rush ? "RUSH" : "NORMAL",
          expectedVersion: order.version,
        },
      });
      if (result.userErrors.length) {
        setErrors(result.userErrors);
      } else {
        onSaved();
        onClose();
      }
    } catch (error) {
      setFailure(error);
    }
    setBusy(false);
  }

  const other = errors.filter((e) => e.field !== "dueAt").map((e) => e.message).join(" ");
  return html`<${Dialog} title=${"Reschedule " + order.orderNumber} onClose=${onClose}>
    <form onSubmit=${submit} novalidate>
      <${Field} label="Due" type="datetime-local" value=${due} onInput=${setDue}
        hint="Leave empty for no due date." error=${errorsFor(errors, "dueAt")} />
      <${Checkbox} label="Rush: first in every queue" checked=${rush} onChange=${setRush} />
      <${ErrorMessage}>${other}<//>
      <${ErrorMessage} error=${failure} />
      <div class="actions">
        <button type="submit" class="primary" aria-busy=${busy ? "true" : undefined}>Save schedule</button>
        <button type="button" onClick=${onClose}>Back</button>
      </div>
    </form>
  <//>`;
}

function QuoteEditor({ order, onClose, onSaved }) {
  const [amount, setAmount] = useState(order.quote ? order.quote.amount : "");
  const [currency, setCurrency] = useState(order.quote ? order.quote.currency : "EUR");
  // The version this edit started from: the server refuses it if the order changed since.
  const [version, setVersion] = useState(order.version);
  const [stale, setStale] = useState(null);
  const [errors, setErrors] = useState([]);
  const [failure, setFailure] = useState(null);
  const [busy, setBusy] = useState(false);

  async function submit(event) {
    event.preventDefault();
    setBusy(true);
    setErrors([]);
    setFailure(null);
    try {
      const { updateWorkOrderQuote: result } = await request(EDIT_QUOTE, {
        input: { workOrderId: order.id, quote: { amount: amount.trim(), currency: currency.trim().toUpperCase() }, expectedVersion: version },
      });
      const staleError = result.userErrors.find((e) => e.code === "STALE_OBJECT");
      if (staleError) {
        const { workOrder } = await request(CURRENT_QUOTE, { id: order.id });
        setStale(workOrder.quote ? money(workOrder.quote) : "no quote");
        setVersion(workOrder.version);
        onSaved();
      } else if (result.userErrors.length) {
        setErrors(result.userErrors);
      } else {
        onSaved();
        onClose();
      }
    } catch (error) {
      setFailure(error);
    }
    setBusy(false);
  }

  return html`<${Dialog} title=${"Edit quote of " + order.orderNumber} onClose=${onClose}>
    <form onSubmit=${submit} novalidate>
      ${stale
        ? html`<p class="message notice" role="alert">Someone changed this work order while you were editing:
            the quote is now <strong>${stale}</strong>. Check your amount and save again, or go back.</p>`
        : null}
      <div class="row">
        <${Field} label="Amount" value=${amount} onInput=${setAmount} inputmode="decimal" required=${true}
          error=${errorsFor(errors, "quote", "amount")} />
        <${Field} label="Currency" value=${currency} onInput=${setCurrency} maxlength="3" class="short"
          error=${errorsFor(errors, "currency")} />
      </div>
      <${ErrorMessage}>${errors.filter((e) => !/quote|amount|currency/.test(e.field || "")).map((e) => e.message).join(" ")}<//>
      <${ErrorMessage} error=${failure} />
      <div class="actions">
        <button type="submit" class="primary" aria-busy=${busy ? "true" : undefined}>${stale ? "Save quote again" : "Save quote"}</button>
        <button type="button" onClick=${onClose}>Back</button>
      </div>
    </form>
  <//>`;
}

async function runMove(mutation, field, input) {
  try {
    const data = await request(mutation, { input });
    const errors = data[field].userErrors;
    return errors.length ? errors.map((e) => e.message).join(" ") : null;
  } catch (error) {
    return messageOf(error);
  }
}

// The admin moves the server offers on a task now (its allowedActions).
function adminMoves(task) {
  return task.allowedActions.filter((action) => action in ADMIN_MOVES);
}

// "In queue since": when it joined its queue. An unfinished task of a cancelled order left
// every queue; one without availableAt waits behind a gate.
function QueuedSince({ task, cancelled }) {
  if (cancelled && !task.completedAt) return html`<span>Not queued (work order cancelled)</span>`;
  if (!task.availableAt) return html`<span>Not yet (gate closed)</span>`;
  return html`<${Time} iso=${task.availableAt} />`;
}

function TaskRow({ task, cancelled, admin, onMove }) {
  const moves = adminMoves(task);
  return html`<tr data-task-id=${task.id}>
    <th scope="row">${task.department.name}</th>
    <td><${Badge} status=${task.status} /></td>
    <td>${task.pickedUpBy ? task.pickedUpBy.name : "—"}</td>
    <td><${QueuedSince} task=${task} cancelled=${cancelled} /></td>
    <td><${Time} iso=${task.startedAt} /></td>
    <td><${Time} iso=${task.completedAt} /></td>
    ${admin
      ? html`<td><div class="row-actions">
          ${moves.map((move) => html`<button type="button" class="small" key=${move}
            aria-label=${ADMIN_MOVES[move].label + " " + task.department.name + " task"}
            onClick=${() => onMove(task, move)}>${ADMIN_MOVES[move].label}</button>`)}
          ${moves.length ? null : html`<span class="empty">${cancelled ? "None (cancelled)" : "None"}</span>`}
        </div></td>`
      : null}
  </tr>`;
}

export function WorkOrderPage({ id, me }) {
  const roles = rolesOf(me);
  const [state, setState] = useState({ order: null, error: null });
  const [status, setStatus] = useState("connecting");
  // Why the server refused to follow this order (the badge alone says only "Not live").
  const [liveFailure, setLiveFailure] = useState(null);
  const [dialog, setDialog] = useState(null);
  const [notice, setNotice] = useState("");
  const loading = useRef({ running: false, again: false });
  useTitle(state.order ? state.order.orderNumber : "Work order");

  async function load() {
    // One read at a time; events arriving meanwhile cause one more read after it.
    if (loading.current.running) {
      loading.current.again = true;
      return;
    }
    loading.current.running = true;
    do {
      loading.current.again = false;
      try {
        const { workOrder } = await request(WORK_ORDER_PAGE, {
          id, seesQuote: roles.seesQuote, seesLedger: roles.accounts,
        });
        setState({ order: workOrder, error: workOrder ? null : "notfound" });
      } catch (error) {
        setState((s) => ({ order: s.order, error }));
      }
    } while (loading.current.again);
    loading.current.running = false;
  }

  useEffect(() => {
    setState({ order: null, error: null });
    setLiveFailure(null);
    let previous = "connecting";
    load();
    // Every change to this order arrives as an event; the page then reads the order again.
    // Each (re)connection reads it once more, covering anything before the subscription.
    const live = follow(transport, {
      query: WORK_ORDER_EVENTS,
      variables: { id, after: null },
      field: "workOrderEvents",
      onEvent: () => load(),
      onStatus: (name) => {
        if (name === "live" && previous !== "live") load();
        previous = name;
        setStatus(name);
      },
      onFailure: (problem) => setLiveFailure(problem.message),
    });
    return () => live.stop();
  }, [id]);

  const { order, error } = state;
  if (error === "notfound") {
    return html`<h1>Work order not found</h1><p><${Link} href="/orders">Back to work orders<//></p>`;
  }
  if (!order) {
    return html`<h1>Work order</h1>${error ? html`<${ErrorMessage} error=${error} />` : html`<${Loading} />`}`;
  }
  // What the server offers on this order now (quote changes, cancelling).
  const quoteEditable = order.allowedActions.includes("EDIT_QUOTE");
  const cancellable = order.allowedActions.includes("CANCEL");
  const offered = (command) => order.allowedActions.includes(command);
  const entries = timeline(order);

  async function hold(reason) {
    const problem = await runMove(HOLD, "holdWorkOrder", { workOrderId: order.id, reason });
    if (!problem) {
      setNotice(`${order.orderNumber} is on hold.`);
      load();
    }
    return problem;
  }

  async function resume() {
    const problem = await runMove(RESUME, "resumeWorkOrder", { workOrderId: order.id });
    if (problem) {
      setState((s) => ({ ...s, error: problem }));
      return;
    }
    setNotice(`${order.orderNumber} is back in its queues.`);
    load();
  }

  async function move(task, which) {
    const spec = ADMIN_MOVES[which];
    setDialog({
      kind: "move",
      title: `${spec.label} the ${task.department.name} task of ${order.orderNumber}`,
      intro: spec.intro,
      action: spec.action,
      confirm: async (reason) => {
        const problem = await runMove(spec.mutation, spec.field, { taskId: task.id, reason });
        if (!problem) {
          setNotice(`${task.department.name}: ${spec.action.toLowerCase()} done.`);
          load();
        }
        return problem;
      },
    });
  }

  async function cancel(reason) {
    const problem = await runMove(CANCEL_WORK_ORDER, "cancelWorkOrder", { workOrderId: order.id, reason });
    if (!problem) {
      setNotice(`${order.orderNumber} was cancelled.`);
      load();
    }
    return problem;
  }

  return html`
    <div class="title-row">
      <h1>${order.orderNumber} <${Badge} status=${order.status} order=${true} /></h1>
      <${LiveStatus} status=${status} />
    </div>
    ${liveFailure && status !== "live"
      ? html`<p class="message notice">Changes by others do not show here until you reload: ${liveFailure}</p>`
      : null}
    <p class="lead">
      <strong>${order.customer.name}</strong>${order.jobLine ? ` · ${order.jobLine}` : ""}${" · created "}
      <${Time} iso=${order.createdAt} />${order.createdBy ? ` by ${order.createdBy.name}` : ""}
    </p>
    <p class="schedule">
      ${order.dueAt
        ? html`Due <${Time} iso=${order.dueAt} /> <span class=${"due" + (order.isLate ? " late" : "")}>(${dueText(order.dueAt, order.isLate)})</span>`
        : "No due date"}
      ${" "}<${TimeBadges} order=${order} />
      ${order.hold
        ? html`<span class="hold-reason">On hold since <${Time} iso=${order.hold.since} /> by ${order.hold.by.name}: ${order.hold.reason}</span>`
        : null}
    </p>
    ${notice ? html`<p class="message success" role="status"><span aria-hidden="true">✓ </span>${notice}</p>` : null}
    ${error ? html`<${ErrorMessage} error=${error} />` : null}
    <div class="order-actions">
      ${roles.seesQuote
        ? html`<p class="quote">Quote: <strong>${order.quote ? money(order.quote) : "none"}</strong></p>`
        : null}
      ${roles.accounts && order.charged
        ? html`<p class="ledger-sums">
            <span class="charged">Charged: <strong>${balances(order.charged)}</strong></span>
            <span class="paid">Paid: <strong>${balances(order.paid)}</strong></span>
            <${Link} href=${"/accounts/" + order.customer.id}>${order.customer.name}’s ledger<//>
          </p>`
        : null}
      ${quoteEditable
        ? html`<button type="button" onClick=${() => setDialog({ kind: "quote" })}>Edit quote</button>`
        : null}
      ${offered("RESCHEDULE")
        ? html`<button type="button" onClick=${() => setDialog({ kind: "reschedule" })}>Reschedule</button>`
        : null}
      ${offered("HOLD")
        ? html`<button type="button" onClick=${() => setDialog({ kind: "hold" })}>Hold</button>`
        : null}
      ${offered("RESUME") ? html`<button type="button" onClick=${resume}>Resume</button>` : null}
      ${cancellable
        ? html`<button type="button" class="danger" onClick=${() => setDialog({ kind: "cancel" })}>Cancel work order</button>`
        : null}
    </div>
    <div class="order-grid">
      <section aria-labelledby="tasks-heading" class="panel wide">
        <h2 id="tasks-heading">Tasks</h2>
        <div class="table-wrap"><table class="tasks-table">
          <thead><tr><th scope="col">Department</th><th scope="col">Status</th><th scope="col">Held by</th>
            <th scope="col">In queue since</th><th scope="col">Started</th><th scope="col">Done</th>
            ${roles.admin ? html`<th scope="col">Admin</th>` : null}</tr></thead>
          <tbody>${order.tasks.map((t) => html`<${TaskRow} key=${t.id} task=${t} cancelled=${order.status === "CANCELLED"} admin=${roles.admin} onMove=${move} />`)}</tbody>
        </table></div>
      </section>
      <${Gate} order=${order} />
      <section aria-labelledby="details-heading" class="panel">
        <h2 id="details-heading">Details</h2>
        <${Details} details=${order.details} />
      </section>
      <section aria-labelledby="history-heading" class="panel wide">
        <h2 id="history-heading">History</h2>
        <ol class="timeline">
          ${entries.map((e, i) => html`<li key=${i}>
            <${Time} iso=${e.at} />
            <span class="what">${e.what}</span>
            ${e.who ? html`<span class="who">by ${e.who}</span>` : null}
            ${e.reason ? html`<span class="reason">Reason: ${e.reason}</span>` : null}
          </li>`)}
        </ol>
      </section>
    </div>
    ${dialog && dialog.kind === "quote"
      ? html`<${QuoteEditor} order=${order} onClose=${() => setDialog(null)} onSaved=${load} />`
      : null}
    ${dialog && dialog.kind === "reschedule"
      ? html`<${Rescheduler} order=${order} onClose=${() => setDialog(null)} onSaved=${load} />`
      : null}
    ${dialog && dialog.kind === "hold"
      ? html`<${ReasonDialog} title=${"Hold " + order.orderNumber + "?"}
          intro="Its waiting tasks leave every queue until it is resumed; work already started may finish."
          action="Hold work order" cancelLabel="Back"
          onConfirm=${hold} onClose=${() => setDialog(null)} />`
      : null}
    ${dialog && dialog.kind === "cancel"
      ? html`<${ReasonDialog} title=${"Cancel " + order.orderNumber + "?"}
          intro="Cancelling withdraws its tasks from every queue. It cannot be undone here."
          action="Confirm cancellation" cancelLabel="Keep work order"
          onConfirm=${cancel} onClose=${() => setDialog(null)} />`
      : null}
    ${dialog && dialog.kind === "move"
      ? html`<${ReasonDialog} title=${dialog.title} intro=${dialog.intro} action=${dialog.action}
          onConfirm=${dialog.confirm} onClose=${() => setDialog(null)} />`
      : null}`;
}
