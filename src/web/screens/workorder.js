// One work order: its tasks, the delivery gate, its whole history as a timeline, live
// through workOrderEvents. Sales and admins edit the quote, the details and the
// departments, and cancel, and see the order's emails; admins release, complete and
// reopen tasks, each with a reason.
import { RequestError, gql } from "../lib/graphql.js";
import { follow } from "../lib/live.js";
import { html, useEffect, useRef, useState } from "../lib/html.js";
import { Link } from "../lib/router.js";
import { rolesOf, transport } from "../lib/session.js";
import { problems, request } from "../lib/data.js";
import { ReasonDialog, otherErrors } from "../lib/forms.js";
import { ErrorMessage, Loading, messageOf } from "../lib/messages.js";
import {
  Badge,
  Dialog,
  DueDate,
  LiveStatus,
  Time,
  TimeBadges,
  balances,
  money,
  possessive,
  useTitle,
} from "../lib/ui.js";
import { CustomerCard, CustomerDialog } from "./customer.js";
import { DepartmentAdder, DetailsEditor } from "./order/corrections.js";
import { QuoteEditor, Rescheduler } from "./order/edits.js";
import { Mail } from "./order/mail.js";
import { Proofs } from "./order/proofs.js";
import { ADMIN_MOVES, TaskRow, adminMoves } from "./order/tasks.js";
import { timeline } from "./order/timeline.js";

export const WORK_ORDER_PAGE = gql`
  query WorkOrderPage($id: ID!, $seesQuote: Boolean!, $seesLedger: Boolean!, $seesLinks: Boolean!) {
    workOrder(id: $id) {
      id orderNumber status version createdAt updatedAt jobLine job { product quantity size stock colours finishing notes } detailLines { label value } allowedActions
      proofRequired
      needsInstallation needsTransport needsRepair dueAt completedAt priority isLate
      hold { reason since by { name } }
      customer { id name contactName email phone notes address { lines postcode city country given } allowedActions }
      createdBy { name }
      addableDepartments { code name }
      quote @include(if: $seesQuote) { amount currency }
      charged @include(if: $seesLedger) { amount currency }
      paid @include(if: $seesLedger) { amount currency }
      refundDue @include(if: $seesLedger) { amount currency }
      tasks {
        id status availableAt startedAt completedAt inQueue awaitsProof allowedActions
        department { code name kind gatesDelivery }
        waitingFor { name }
        pickedUpBy { name }
        history { action fromStatus toStatus reason occurredAt actor { id name } }
      }
      deliveryTask { id availableAt delivery { needs } }
      history {
        action fromState toState reason occurredAt bySystem actor { id name } department { name }
        changes { label before after }
      }
      proofs {
        id version fileName sizeBytes uploadedAt status decidedAt decidedThrough decidedByName comment
        previewUrl downloadUrl uploadedBy { name } decidedBy { name }
      }
      customerLinks @include(if: $seesLinks) {
        id createdAt expiresAt revokedAt lastUsedAt emailedTo works createdBy { name }
      }
      mailMessages @include(if: $seesLinks) {
        id kind recipient orderNumber subject status attempts error lastAttemptAt nextAttemptAt sentAt createdAt allowedActions
      }
    }
  }
`;

export const WORK_ORDER_EVENTS = gql`
  subscription WorkOrderLive($id: ID!, $after: String) {
    workOrderEvents(workOrderId: $id, after: $after) { cursor kind occurredAt }
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

export const HOLD = gql`
  mutation Hold($input: HoldWorkOrderInput!) {
    holdWorkOrder(input: $input) { changed userErrors { code field message } }
  }
`;

export const CHARGE_QUOTE = gql`
  mutation ChargeQuote($input: ChargeWorkOrderQuoteInput!) {
    chargeWorkOrderQuote(input: $input) {
      changed entry { amount { amount currency } }
      userErrors { code field message }
    }
  }
`;

export const RESUME = gql`
  mutation Resume($input: ResumeWorkOrderInput!) {
    resumeWorkOrder(input: $input) { changed userErrors { code field message } }
  }
`;

function Gate({ order, cancelled }) {
  const delivery = order.tasks.find((t) => t.id === order.deliveryTask.id);
  const open = Boolean(order.deliveryTask.availableAt);
  // Which departments the gate waits for is the server's to say.
  const waitingFor = delivery ? delivery.waitingFor.map((d) => d.name) : [];
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
      ${order.deliveryTask.delivery.needs.length
        ? html`Needed on delivery: <strong>${order.deliveryTask.delivery.needs.join(", ")}</strong>`
        : "Nothing beyond handing over is needed on delivery."}
    </p>
  </section>`;
}

// The server writes every detail in words (WorkOrder.detailLines).
function Details({ lines }) {
  if (!lines.length) return html`<p class="empty">No details.</p>`;
  return html`<dl class="details">
    ${lines.map((line, i) => html`<div key=${i}><dt>${line.label}</dt><dd>${line.value}</dd></div>`)}
  </dl>`;
}

export function WorkOrderPage({ id, me }) {
  const roles = rolesOf(me);
  const [state, setState] = useState({ order: null, error: null });
  const [status, setStatus] = useState("connecting");
  // Why the server refused to follow this order (the badge alone says only "Not live").
  const [liveFailure, setLiveFailure] = useState(null);
  const [dialog, setDialog] = useState(null);
  // What the screen that opened this one had to say (the server's warnings on a new order).
  const [notice, setNotice] = useState(window.history.state?.notice || "");
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
          id, seesQuote: roles.seesQuote, seesLedger: roles.accounts, seesLinks: roles.sales,
        });
        setState({ order: workOrder, error: workOrder ? null : "notfound" });
      } catch (error) {
        // The page's one variable is the address's id: refused as malformed (BAD_REQUEST),
        // it names no work order, as one of another kind does (answered with null).
        const badLink = error instanceof RequestError && error.code === "BAD_REQUEST";
        setState((s) => ({ order: s.order, error: badLink && !s.order ? "notfound" : error }));
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
      // Away longer than the server keeps events: follow from now; reconnecting reads the
      // order again (above), which is this page's snapshot.
      onExpired: () => null,
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
  // What the server offers on this order now (quote changes, charging it, cancelling).
  const quoteEditable = order.allowedActions.includes("EDIT_QUOTE");
  const cancellable = order.allowedActions.includes("CANCEL");
  const offered = (command) => order.allowedActions.includes(command);
  // Words only (the gate's, the tasks' badges): what is offered is in allowedActions.
  const cancelled = order.status === "CANCELLED";
  const entries = timeline(order);
  // Charged already (the server offers no charge once that comes to the quote): asked first.
  const charges = (order.charged || []).filter((m) => Number(m.amount) > 0);
  // Admins, and Sales when the server offers them a move on a task (REMOVE).
  const office = roles.admin || order.tasks.some((t) => adminMoves(t).length);

  async function hold(reason) {
    const problem = await problems(HOLD, "holdWorkOrder", { workOrderId: order.id, reason });
    if (!problem) {
      setNotice(`${order.orderNumber} is on hold.`);
      load();
    }
    return problem;
  }

  async function chargeQuote() {
    setNotice("");
    try {
      const { chargeWorkOrderQuote: charged } = await request(CHARGE_QUOTE, { input: { workOrderId: order.id } });
      if (charged.userErrors.length) {
        setState((s) => ({ ...s, error: charged.userErrors.map((e) => e.message).join(" ") }));
        return;
      }
      setNotice(charged.changed
        ? `Charged ${money(charged.entry.amount)}: the quote of ${order.orderNumber}.`
        : `This quote was charged already (${money(charged.entry.amount)}); nothing was posted again.`);
      load();
    } catch (error) {
      setState((s) => ({ ...s, error: messageOf(error) }));
    }
  }

  async function resume() {
    const problem = await problems(RESUME, "resumeWorkOrder", { workOrderId: order.id });
    if (problem) {
      setState((s) => ({ ...s, error: otherErrors(problem, []) }));
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
        const problem = await problems(spec.mutation, spec.field, spec.input(task, reason, order));
        if (!problem) {
          setNotice(`${task.department.name} task ${spec.done}.`);
          load();
        }
        return problem;
      },
    });
  }

  async function cancel(reason) {
    const problem = await problems(CANCEL_WORK_ORDER, "cancelWorkOrder", { workOrderId: order.id, reason });
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
        ? html`Due <${DueDate} order=${order} />`
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
      ${order.charged
        ? html`<p class="ledger-sums">
            <span class="charged">Charged: <strong>${balances(order.charged)}</strong></span>
            <span class="paid">Paid: <strong>${balances(order.paid)}</strong></span>
            ${order.refundDue.length
              ? html`<span class="refund-due">Refund due: <strong>${balances(order.refundDue)}</strong></span>`
              : null}
            <${Link} href=${"/accounts/" + order.customer.id}>${possessive(order.customer.name)} ledger<//>
          </p>`
        : null}
      ${quoteEditable
        ? html`<button type="button" onClick=${() => setDialog({ kind: "quote" })}>Edit quote</button>`
        : null}
      ${offered("CHARGE_QUOTE")
        ? html`<button type="button"
            onClick=${() => (charges.length ? setDialog({ kind: "charge" }) : chargeQuote())}>Charge the quote</button>`
        : null}
      ${offered("RESCHEDULE")
        ? html`<button type="button" onClick=${() => setDialog({ kind: "reschedule" })}>Reschedule</button>`
        : null}
      ${offered("HOLD")
        ? html`<button type="button" onClick=${() => setDialog({ kind: "hold" })}>Hold</button>`
        : null}
      ${offered("RESUME") ? html`<button type="button" onClick=${resume}>Resume</button>` : null}
      ${offered("EDIT_DETAILS")
        ? html`<button type="button" onClick=${() => setDialog({ kind: "details" })}>Edit details</button>`
        : null}
      ${offered("CHANGE_DEPARTMENTS") && order.addableDepartments.length
        ? html`<button type="button" onClick=${() => setDialog({ kind: "add" })}>Add department</button>`
        : null}
      <${Link} class="button" href=${`/orders/${order.id}/ticket`}>Print ticket<//>
      ${cancellable
        ? html`<button type="button" class="danger" onClick=${() => setDialog({ kind: "cancel" })}>Cancel work order</button>`
        : null}
    </div>
    <div class="order-grid">
      <section aria-labelledby="tasks-heading" class="panel wide">
        <h2 id="tasks-heading">Tasks</h2>
        <div class="table-wrap" tabindex="0"><table class="tasks-table">
          <thead><tr><th scope="col">Department</th><th scope="col">Status</th><th scope="col">Held by</th>
            <th scope="col">In queue since</th><th scope="col">Started</th><th scope="col">Done</th>
            ${office ? html`<th scope="col">Actions</th>` : null}</tr></thead>
          <tbody>${order.tasks.map((t) => html`<${TaskRow} key=${t.id} task=${t} cancelled=${cancelled} admin=${office} onMove=${move} />`)}</tbody>
        </table></div>
      </section>
      <${Gate} order=${order} cancelled=${cancelled} />
      <section aria-labelledby="customer-heading" class="panel">
        <h2 id="customer-heading">Customer</h2>
        <${CustomerCard} customer=${order.customer} />
        ${order.customer.allowedActions.includes("EDIT")
          ? html`<div class="actions"><button type="button" onClick=${() => setDialog({ kind: "customer" })}>Edit customer</button></div>`
          : null}
      </section>
      <section aria-labelledby="details-heading" class="panel">
        <h2 id="details-heading">Details</h2>
        <${Details} lines=${order.detailLines} />
      </section>
      <${Proofs} order=${order} onChanged=${load} />
      ${order.mailMessages ? html`<${Mail} order=${order} onChanged=${load} />` : null}
      <section aria-labelledby="history-heading" class="panel wide">
        <h2 id="history-heading">History</h2>
        <ol class="timeline">
          ${entries.map((e, i) => html`<li key=${i}>
            <${Time} iso=${e.at} />
            <span class="what">${e.what}</span>
            ${e.who ? html`<span class="who">by ${e.who}</span>` : null}
            ${e.reason ? html`<span class="reason">Reason: ${e.reason}</span>` : null}
            ${e.lines.length
              ? html`<ul class="changes">${e.lines.map((line) => html`<li>${line}</li>`)}</ul>`
              : null}
          </li>`)}
        </ol>
      </section>
    </div>
    ${dialog && dialog.kind === "quote"
      ? html`<${QuoteEditor} order=${order} onClose=${() => setDialog(null)} onSaved=${load} />`
      : null}
    ${dialog && dialog.kind === "customer"
      ? html`<${CustomerDialog} customer=${order.customer} onClose=${() => setDialog(null)}
          onSaved=${() => { setNotice("Customer saved."); load(); }} />`
      : null}
    ${dialog && dialog.kind === "details"
      ? html`<${DetailsEditor} order=${order} onClose=${() => setDialog(null)}
          onSaved=${() => { setNotice("Details saved."); load(); }} />`
      : null}
    ${dialog && dialog.kind === "add"
      ? html`<${DepartmentAdder} order=${order} onClose=${() => setDialog(null)}
          onSaved=${(name) => { setNotice(`${name} added.`); load(); }} />`
      : null}
    ${dialog && dialog.kind === "reschedule"
      ? html`<${Rescheduler} order=${order} onClose=${() => setDialog(null)}
          onSaved=${(warned) => { setNotice(warned ? `Schedule saved. ${warned}` : ""); load(); }} />`
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
    ${dialog && dialog.kind === "charge"
      ? html`<${Dialog} title=${"Charge the quote of " + order.orderNumber + "?"} onClose=${() => setDialog(null)}>
          <p>This order was charged <strong>${balances(charges)}</strong> already. Charging the
            quote adds a charge of <strong>${money(order.quote)}</strong>.</p>
          <div class="actions">
            <button type="button" class="primary" onClick=${() => { setDialog(null); chargeQuote(); }}>Charge ${money(order.quote)}</button>
            <button type="button" onClick=${() => setDialog(null)}>Back</button>
          </div>
        <//>`
      : null}
    ${dialog && dialog.kind === "move"
      ? html`<${ReasonDialog} title=${dialog.title} intro=${dialog.intro} action=${dialog.action}
          onConfirm=${dialog.confirm} onClose=${() => setDialog(null)} />`
      : null}`;
}
