// Accounts (Accounts members and admins): customers with what they owe and the refunds
// due on cancelled orders (refunds.js), a customer's ledger with the balance after each
// entry, and "Post entry" (also as "Post refund" of what a cancelled order is owed). The
// form sends one idempotency key per opening (useOnce), so a double click or a retry
// after a network error posts one entry.
import { DownloadButton } from "../lib/download.js";
import { gql } from "../lib/graphql.js";
import { html, useEffect, useRef, useState } from "../lib/html.js";
import { Link, navigate, query } from "../lib/router.js";
import { RefreshButton, ShowMore, request, useOnce, usePages, useQuery, useRefreshOnVisible } from "../lib/data.js";
import { Field, FieldError, FormErrors, errorsFor } from "../lib/forms.js";
import { ErrorMessage, Loading, RetryMessage } from "../lib/messages.js";
import { Time, amountHint, balances, decimal, money, readAmount, useId, useTitle } from "../lib/ui.js";
import { Receivables } from "./ageing.js";
import { CUSTOMER_REFUNDS, OrdersToRefund, REFUNDS_DUE, RefundsDue } from "./refunds.js";

export const ACCOUNTS_CUSTOMERS = gql`
  query AccountsCustomers($search: String, $after: String) {
    customers(search: $search, first: 25, after: $after) {
      pageInfo { hasNextPage endCursor }
      edges { node { id name balance { amount currency } } }
    }
  }
`;

export const CUSTOMER_LEDGER = gql`
  query CustomerLedger($id: ID!, $after: String) {
    customer(id: $id) {
      id
      name
      balance { amount currency }
      ledger(first: 50, after: $after) {
        pageInfo { hasNextPage endCursor }
        edges {
          node {
            id kind memo postedAt
            amount { amount currency }
            balanceAfter { amount currency }
            postedBy { name }
            workOrder { id orderNumber }
          }
        }
      }
    }
  }
`;

// The customer's orders, to post an entry against one.
export const CUSTOMER_ORDERS = gql`
  query CustomerOrders($customerId: ID!) {
    workOrders(customerId: $customerId, first: 100) {
      edges { node { id orderNumber status jobLine } }
    }
  }
`;

export const POST_ENTRY = gql`
  mutation PostEntry($input: PostLedgerEntryInput!) {
    postLedgerEntry(input: $input) {
      changed
      entry { id kind amount { amount currency } balanceAfter { amount currency } }
      userErrors { code field message }
    }
  }
`;

// Each kind's name (nouns, like the API's), and what the form's menu says about it.
const KINDS = [
  ["CHARGE", "Charge", "Charge (an invoice)"],
  ["PAYMENT", "Payment", "Payment (received)"],
  ["CREDIT", "Credit", "Credit (discount, goodwill)"],
  ["REFUND", "Refund", "Refund (paid back)"],
  ["ADJUSTMENT", "Adjustment", "Adjustment (signed)"],
];
// The ledger of a customer that is not there: nothing to page through.
const NO_ENTRIES = { edges: [], pageInfo: { hasNextPage: false, endCursor: null } };
const KIND_NAMES = Object.fromEntries(KINDS.map(([kind, name]) => [kind, name]));

export function Accounts({ path }) {
  useTitle("Accounts");
  const search = query(path).get("q") || "";
  const [typed, setTyped] = useState(search);
  const searchId = useId("search");
  const list = usePages(ACCOUNTS_CUSTOMERS, { search: search || null }, (data) => data.customers);
  const refunds = usePages(REFUNDS_DUE, {}, (data) => data.customers);
  const customers = list.items;
  function refresh() {
    list.refresh();
    refunds.refresh();
  }
  // Read again on "Refresh", and when the person comes back to the tab.
  useRefreshOnVisible(refresh);

  function submit(event) {
    event.preventDefault();
    navigate("/accounts" + (typed.trim() ? "?q=" + encodeURIComponent(typed.trim()) : ""), { replace: true });
  }

  return html`<div class="title-row">
      <h1>Accounts</h1>
      <${RefreshButton} onClick=${refresh} busy=${list.loading && Boolean(list.data)} />
    </div>
    <${Receivables} />
    <${RefundsDue} list=${refunds} />
    <h2>Customers</h2>
    <form class="filters" role="search" onSubmit=${submit}>
      <div class="field">
        <label for=${searchId}>Search customers</label>
        <input id=${searchId} type="search" value=${typed} onInput=${(e) => setTyped(e.currentTarget.value)} />
      </div>
      <button type="submit">Search</button>
    </form>
    <${ErrorMessage} error=${list.error} />
    ${!list.data && list.loading ? html`<${Loading} what="Loading customers" />` : null}
    ${list.data
      ? customers.length
        ? html`<div class="table-wrap"><table>
            <caption class="visually-hidden">Customers and what they owe</caption>
            <thead><tr><th scope="col">Customer</th><th scope="col" class="num">Balance (positive: owes us)</th></tr></thead>
            <tbody>${customers.map((c) => html`<tr key=${c.id}>
              <th scope="row"><${Link} href=${"/accounts/" + c.id}>${c.name}<//></th>
              <td class="num">${balances(c.balance)}</td>
            </tr>`)}</tbody>
          </table></div>
          <${ShowMore} list=${list} />`
        : html`<p class="empty">No customers match.</p>`
      : null}`;
}

// `refund`, when given ({ order, due }), opens the form as a refund of what is due on a
// cancelled order.
function PostEntryForm({ customer, refund, onPosted, onClose }) {
  // One key per opening of this form (it closes when posted): every submit from it is the
  // same intended entry.
  const { errors, setErrors, failure, busy, held, send } = useOnce();
  const [kind, setKind] = useState(refund ? "REFUND" : "CHARGE");
  const [amount, setAmount] = useState(refund ? decimal(refund.due.amount) : "");
  const [currency, setCurrency] = useState(
    refund ? refund.due.currency : customer.balance.length ? customer.balance[0].currency : "EUR",
  );
  const [memo, setMemo] = useState(refund ? "Refund for cancelled " + refund.order.orderNumber : "");
  const [workOrderId, setWorkOrderId] = useState(refund ? refund.order.id : "");
  const orders = useQuery(CUSTOMER_ORDERS, { customerId: customer.id });
  const kindId = useId("kind");
  const orderId = useId("order");
  const first = useRef(null);
  useEffect(() => first.current && first.current.focus(), []);

  async function submit(event) {
    event.preventDefault();
    // The shop's notation ("1.250,00") or the plain one, sent plain. A held form sends
    // what it sent before.
    const plain = held ? null : readAmount(amount);
    if (!held && plain === null) {
      setErrors([{ field: "amount", message: amountHint() }]);
      return;
    }
    await send(POST_ENTRY, "postLedgerEntry", {
      customerId: customer.id,
      workOrderId: workOrderId || null,
      kind,
      amount: plain,
      currency: currency.trim().toUpperCase() || null,
      memo: memo.trim() || null,
    }, onPosted);
  }

  const orderError = errorsFor(errors, "workOrderId");
  return html`<section class="panel" aria-labelledby="post-heading">
    <h2 id="post-heading">New ledger entry</h2>
    <form class="stack" onSubmit=${submit} novalidate>
      <div class="row">
        <div class="field">
          <label for=${kindId}>Kind</label>
          <select id=${kindId} ref=${first} value=${kind} disabled=${held}
            onChange=${(e) => setKind(e.currentTarget.value)}>
            ${KINDS.map(([value, , label]) => html`<option value=${value}>${label}</option>`)}
          </select>
        </div>
        <${Field} label="Amount" value=${amount} onInput=${setAmount} inputmode="decimal" required=${true}
          readOnly=${held}
          hint=${kind === "ADJUSTMENT" ? "Positive raises what the customer owes, negative lowers it." : "Positive; the kind gives the sign."}
          error=${errorsFor(errors, "amount")} />
        <${Field} label="Currency" value=${currency} onInput=${setCurrency} maxlength="3" class="short"
          readOnly=${held}
          error=${errorsFor(errors, "currency")} />
      </div>
      <${Field} label="Memo" value=${memo} onInput=${setMemo} readOnly=${held}
        error=${errorsFor(errors, "memo")} />
      <div class="field">
        <label for=${orderId}>Work order (optional)</label>
        <select id=${orderId} value=${workOrderId} disabled=${held}
          aria-invalid=${orderError ? "true" : undefined} aria-describedby=${orderError ? orderId + "-error" : undefined}
          onChange=${(e) => setWorkOrderId(e.currentTarget.value)}>
          <option value="">None</option>
          ${orders.data
            ? orders.data.workOrders.edges.map(({ node }) => html`<option value=${node.id}>
                ${node.orderNumber}${node.jobLine ? " · " + node.jobLine : ""}${node.status !== "ACTIVE" ? " (" + node.status.toLowerCase() + ")" : ""}</option>`)
            : null}
        </select>
        <${FieldError} id=${orderId + "-error"} error=${orderError} />
      </div>
      <${FormErrors} errors=${errors} fields=${["amount", "currency", "memo", "workOrderId", "kind"]} />
      <${RetryMessage} failure=${failure} button="Post entry" what="this entry" verb="posted" />
      <div class="actions">
        <button type="submit" class="primary" aria-busy=${busy ? "true" : undefined}>Post entry</button>
        <button type="button" onClick=${onClose}>Close</button>
      </div>
    </form>
  </section>`;
}

export function CustomerLedger({ id }) {
  const ledger = usePages(CUSTOMER_LEDGER, { id }, (data) => (data.customer ? data.customer.ledger : NO_ENTRIES));
  const refunds = useQuery(CUSTOMER_REFUNDS, { customerId: id });
  const [form, setForm] = useState(0);
  const [refund, setRefund] = useState(null);
  const [posted, setPosted] = useState(null);
  const customer = ledger.data && ledger.data.customer;
  useTitle(customer ? customer.name + " · ledger" : "Ledger");
  function refresh() {
    ledger.refresh();
    refunds.refetch();
  }
  // Read again on "Refresh", and when the person comes back to the tab.
  useRefreshOnVisible(refresh);

  if (!customer) {
    return html`<h1>Ledger</h1>
      ${ledger.error ? html`<${ErrorMessage} error=${ledger.error} />` : ledger.loading ? html`<${Loading} />` : html`<p>No such customer.</p>`}`;
  }
  const entries = ledger.items;

  function onPosted(result) {
    setForm(0);
    setPosted(result);
    refresh();
  }

  function open(refundOf) {
    setPosted(null);
    setRefund(refundOf);
    setForm((n) => n + 1);
  }

  return html`
    <p class="crumbs"><${Link} href="/accounts">Accounts<//> › ${customer.name}</p>
    <div class="title-row">
      <h1>${customer.name}</h1>
      <div class="actions">
        <${RefreshButton} onClick=${refresh} busy=${ledger.loading} />
        <${DownloadButton} file="ledger.csv" params=${{ customerId: id }}
          filename=${"ledger-" + customer.name.replace(/[^\w-]+/g, "-") + ".csv"} label="Ledger (CSV)" />
        ${form ? null : html`<button type="button" class="primary" onClick=${() => open(null)}>New ledger entry</button>`}
      </div>
    </div>
    <p class="lead">Balance: <strong>${balances(customer.balance)}</strong> <span class="hint">(positive: the customer owes us)</span></p>
    ${posted
      ? html`<p class="message success" role="status"><span aria-hidden="true">✓ </span>
          Posted: ${KIND_NAMES[posted.entry.kind]} ${money(posted.entry.amount)};
          balance after it ${money(posted.entry.balanceAfter)}.
          ${posted.changed ? "" : " (It had already reached the server, so it was not posted twice.)"}</p>`
      : null}
    ${form
      ? html`<${PostEntryForm} key=${form} customer=${customer} refund=${refund} onPosted=${onPosted}
          onClose=${() => setForm(0)} />`
      : html`<${OrdersToRefund} refunds=${refunds} onRefund=${(order, due) => open({ order, due })} />`}
    <h2>Ledger</h2>
    ${entries.length
      ? html`<div class="table-wrap"><table class="ledger">
          <caption class="visually-hidden">Ledger entries, newest first</caption>
          <thead><tr><th scope="col">Posted</th><th scope="col">Kind</th><th scope="col" class="num">Amount</th>
            <th scope="col" class="num">Balance after</th><th scope="col">Work order</th><th scope="col">Memo</th><th scope="col">By</th></tr></thead>
          <tbody>${entries.map((e) => html`<tr key=${e.id} data-entry-id=${e.id}>
            <td><${Time} iso=${e.postedAt} /></td>
            <td>${KIND_NAMES[e.kind]}</td>
            <td class="num">${money(e.amount)}</td>
            <td class="num">${money(e.balanceAfter)}</td>
            <td>${e.workOrder ? html`<${Link} href=${"/orders/" + e.workOrder.id}>${e.workOrder.orderNumber}<//>` : "—"}</td>
            <td>${e.memo || ""}</td>
            <td>${e.postedBy.name}</td>
          </tr>`)}</tbody>
        </table></div>
        <${ShowMore} list=${ledger} label="Show older entries" />`
      : html`<p class="empty">No entries yet.</p>`}`;
}
