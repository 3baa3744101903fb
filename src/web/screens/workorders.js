// Work orders: search, filter by status, customer, late, rush and hold, sort by creation
// or due date, keyset paging ("Show more"). The filters live in the address
// (?q=&status=&customer=&late=1&rush=1&held=1&sort=due), so Back and links work. On a
// phone each row is a card, its fields named by their data-label (app.css).
import { gql } from "../lib/graphql.js";
import { html, useRef, useState } from "../lib/html.js";
import { useTypedFollowing } from "../lib/forms.js";
import { Link, navigate, query } from "../lib/router.js";
import { PeriodExports } from "../lib/download.js";
import { rolesOf } from "../lib/session.js";
import { ProofBadge } from "./order/proofs.js";
import { RefreshButton, ShowMore, usePages, useQuery, useRefreshOnVisible } from "../lib/data.js";
import { ErrorMessage, Loading } from "../lib/messages.js";
import { Badge, DueDate, Time, TimeBadges, possessive, useId, useTitle } from "../lib/ui.js";

export const WORK_ORDER_LIST = gql`
  query WorkOrderList(
    $status: WorkOrderStatus, $customerId: ID, $search: String, $late: Boolean, $held: Boolean,
    $priority: WorkOrderPriority, $orderBy: WorkOrderOrder!, $after: String
  ) {
    workOrders(
      status: $status, customerId: $customerId, search: $search, late: $late, held: $held,
      priority: $priority, orderBy: $orderBy, first: 25, after: $after
    ) {
      pageInfo { hasNextPage endCursor }
      edges {
        node {
          id orderNumber status jobLine createdAt dueAt completedAt priority isLate hold { reason }
          proofRequired latestProof { version status }
          customer { id name }
          progress { done total }
        }
      }
    }
  }
`;

// The name of the customer the list is filtered by.
export const FILTER_CUSTOMER = gql`
  query FilterCustomer($id: ID!) {
    customer(id: $id) { id name }
  }
`;

const STATUSES = [
  ["", "Any status"],
  ["ACTIVE", "Active"],
  ["COMPLETED", "Completed"],
  ["CANCELLED", "Cancelled"],
];

// Each a checkbox: only the orders it names.
const ONLY = [
  ["late", "Late only"],
  ["rush", "Rush only"],
  ["held", "On hold only"],
];
const KEYS = ["q", "status", "customer", "late", "rush", "held", "sort"];

function filtersOf(params) {
  return Object.fromEntries(KEYS.map((key) => [key, params.get(key) || ""]));
}

function address(params) {
  const search = new URLSearchParams();
  Object.entries(params).forEach(([key, value]) => value && search.set(key, value));
  const text = search.toString();
  return "/orders" + (text ? "?" + text : "");
}

// The latest proof version and its state; "Needed, none yet" when the customer must
// approve one and none was uploaded yet.
function proofState(order) {
  if (order.latestProof) {
    return html`<span class="nowrap">v${order.latestProof.version}</span> <${ProofBadge} proof=${order.latestProof} />`;
  }
  return order.proofRequired ? html`<span class="badge held"><span aria-hidden="true">○ </span>Needed, none yet</span>` : "—";
}

function progress(p) {
  return `${p.done} of ${p.total} tasks done`;
}

export function WorkOrders({ me, path }) {
  useTitle("Work orders");
  const params = query(path);
  const filters = filtersOf(params);
  const [typed, setTyped] = useTypedFollowing(filters.q);
  const searchId = useId("search");
  const statusId = useId("status");
  const sortId = useId("sort");
  const byDue = filters.sort === "due";
  const debounce = useRef(null);

  const variables = {
    status: filters.status || null,
    customerId: filters.customer || null,
    search: filters.q.trim() || null,
    late: filters.late ? true : null,
    held: filters.held ? true : null,
    priority: filters.rush ? "RUSH" : null,
    orderBy: byDue ? "DUE_AT" : "CREATED_AT",
  };
  const list = usePages(WORK_ORDER_LIST, variables, (data) => data.workOrders);
  const customer = useQuery(FILTER_CUSTOMER, { id: filters.customer }, { skip: !filters.customer });
  // Read again on "Refresh", and when the person comes back to the tab.
  useRefreshOnVisible(list.refresh);

  // Reads the address when it runs: a debounced search must not restore older filters.
  function setFilter(change) {
    const now = query(window.location.pathname + window.location.search);
    navigate(address({ ...filtersOf(now), ...change }), { replace: true });
  }

  function onSearch(value) {
    setTyped(value);
    clearTimeout(debounce.current);
    debounce.current = setTimeout(() => setFilter({ q: value }), 300);
  }

  const orders = list.items;
  // Orders ticked for printing their job tickets together.
  const [selected, setSelected] = useState([]);
  function toggle(id, on) {
    setSelected((ids) => (on ? [...ids.filter((i) => i !== id), id] : ids.filter((i) => i !== id)));
  }

  return html`
    <div class="title-row">
      <h1>Work orders</h1>
      <div class="actions">
        <${RefreshButton} onClick=${list.refresh} busy=${list.loading && Boolean(list.data)} />
        ${rolesOf(me).sales ? html`<${Link} class="button primary" href="/orders/new">New work order<//>` : null}
      </div>
    </div>
    <form class="filters" role="search" onSubmit=${(e) => { e.preventDefault(); setFilter({ q: typed }); }}>
      <div class="field">
        <label for=${searchId}>Search</label>
        <input id=${searchId} type="search" value=${typed} placeholder="Order number or customer"
          onInput=${(e) => onSearch(e.currentTarget.value)} />
      </div>
      <div class="field">
        <label for=${statusId}>Status</label>
        <select id=${statusId} value=${filters.status} onChange=${(e) => setFilter({ status: e.currentTarget.value })}>
          ${STATUSES.map(([value, label]) => html`<option value=${value}>${label}</option>`)}
        </select>
      </div>
      <div class="field">
        <label for=${sortId}>Sort</label>
        <select id=${sortId} value=${filters.sort} onChange=${(e) => setFilter({ sort: e.currentTarget.value })}>
          <option value="">Newest first</option>
          <option value="due">Due date, earliest first</option>
        </select>
      </div>
      <fieldset class="only">
        <legend class="visually-hidden">Only</legend>
        ${ONLY.map(([key, label]) => html`<label key=${key}>
          <input type="checkbox" checked=${Boolean(filters[key])}
            onChange=${(e) => setFilter({ [key]: e.currentTarget.checked ? "1" : "" })} /> ${label}</label>`)}
      </fieldset>
      ${filters.customer
        ? html`<p class="chip">Customer: <strong>${customer.data && customer.data.customer ? customer.data.customer.name : "…"}</strong>
            <button type="button" class="small" onClick=${() => setFilter({ customer: "" })}>Clear customer filter</button></p>`
        : null}
    </form>
    <${ErrorMessage} error=${list.error} />
    ${!list.data && list.loading ? html`<${Loading} what="Loading work orders" />` : null}
    ${list.data
      ? orders.length
        ? html`<div class="table-wrap orders-wrap"><table class="orders">
            <caption class="visually-hidden">Work orders, ${byDue ? "earliest due date first" : "newest first"}</caption>
            <thead><tr><th scope="col"><span class="visually-hidden">Ticket</span></th><th scope="col">Order</th><th scope="col">Customer</th><th scope="col">Job</th>
              <th scope="col">Status</th><th scope="col">Proof</th><th scope="col">Due</th><th scope="col">Progress</th><th scope="col">Created</th></tr></thead>
            <tbody>
              ${orders.map((o) => html`<tr key=${o.id}>
                <td class="pick"><input type="checkbox" aria-label=${"Select " + o.orderNumber + " for printing"}
                  checked=${selected.includes(o.id)} onChange=${(e) => toggle(o.id, e.currentTarget.checked)} /></td>
                <th scope="row"><${Link} href=${"/orders/" + o.id}>${o.orderNumber}<//></th>
                <td data-label="Customer"><${Link} href=${address({ ...filters, customer: o.customer.id })}
                  title=${"Only " + possessive(o.customer.name) + " orders"}>${o.customer.name}<//></td>
                <td data-label="Job">${o.jobLine || "—"}</td>
                <td data-label="Status"><${Badge} status=${o.status} order=${true} /> <${TimeBadges} order=${o} /></td>
                <td data-label="Proof">${proofState(o)}</td>
                <td data-label="Due">${o.dueAt ? html`<${DueDate} order=${o} />` : "—"}</td>
                <td data-label="Progress">${progress(o.progress)}</td>
                <td data-label="Created"><${Time} iso=${o.createdAt} /></td>
              </tr>`)}
            </tbody>
          </table></div>
          <p class="paging" role="status">Showing ${orders.length} work order${orders.length === 1 ? "" : "s"}.${" "}
            ${selected.length
              ? html`<${Link} class="button" href=${"/tickets?ids=" + selected.map(encodeURIComponent).join(",")}>
                  Print ${selected.length} ticket${selected.length === 1 ? "" : "s"}<//>`
              : null}</p>
          <${ShowMore} list=${list} />`
        : html`<p class="empty">No work orders match.</p>`
      : null}
    ${rolesOf(me).accounts ? html`<${PeriodExports} />` : null}`;
}
