// Work orders: search, filter by status and customer, keyset paging ("Show more").
// The filters live in the address (?q=&status=&customer=), so Back and links work.
import { gql } from "../lib/graphql.js";
import { html, useEffect, useRef, useState } from "../lib/html.js";
import { Link, navigate, query } from "../lib/router.js";
import { rolesOf } from "../lib/session.js";
import {
  Badge,
  ErrorMessage,
  Loading,
  RefreshButton,
  ShowMore,
  Time,
  useId,
  usePages,
  useQuery,
  useRefreshOnVisible,
  useTitle,
} from "../lib/ui.js";

export const WORK_ORDER_LIST = gql`
  query WorkOrderList($status: WorkOrderStatus, $customerId: ID, $search: String, $after: String) {
    workOrders(status: $status, customerId: $customerId, search: $search, first: 25, after: $after) {
      pageInfo { hasNextPage endCursor }
      edges {
        node {
          id orderNumber status jobLine createdAt
          customer { id name }
          tasks { status }
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

function address(params) {
  const search = new URLSearchParams();
  Object.entries(params).forEach(([key, value]) => value && search.set(key, value));
  const text = search.toString();
  return "/orders" + (text ? "?" + text : "");
}

function progress(tasks) {
  const done = tasks.filter((t) => t.status === "COMPLETED").length;
  return `${done} of ${tasks.length} tasks done`;
}

export function WorkOrders({ me, path }) {
  useTitle("Work orders");
  const params = query(path);
  const filters = {
    q: params.get("q") || "",
    status: params.get("status") || "",
    customer: params.get("customer") || "",
  };
  const [typed, setTyped] = useState(filters.q);
  const searchId = useId("search");
  const statusId = useId("status");
  const debounce = useRef(null);

  const variables = {
    status: filters.status || null,
    customerId: filters.customer || null,
    search: filters.q.trim() || null,
  };
  const list = usePages(WORK_ORDER_LIST, variables, (data) => data.workOrders);
  const customer = useQuery(FILTER_CUSTOMER, { id: filters.customer }, { skip: !filters.customer });
  useEffect(() => setTyped(filters.q), [filters.q]);
  // Read again on "Refresh", and when the person comes back to the tab.
  useRefreshOnVisible(list.refresh);

  // Reads the address when it runs: a debounced search must not restore older filters.
  function setFilter(change) {
    const now = query(window.location.pathname + window.location.search);
    const current = { q: now.get("q") || "", status: now.get("status") || "", customer: now.get("customer") || "" };
    navigate(address({ ...current, ...change }), { replace: true });
  }

  function onSearch(value) {
    setTyped(value);
    clearTimeout(debounce.current);
    debounce.current = setTimeout(() => setFilter({ q: value }), 300);
  }

  const orders = list.items;

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
      ${filters.customer
        ? html`<p class="chip">Customer: <strong>${customer.data && customer.data.customer ? customer.data.customer.name : "…"}</strong>
            <button type="button" class="small" onClick=${() => setFilter({ customer: "" })}>Clear customer filter</button></p>`
        : null}
    </form>
    <${ErrorMessage} error=${list.error} />
    ${!list.data && list.loading ? html`<${Loading} what="Loading work orders" />` : null}
    ${list.data
      ? orders.length
        ? html`<div class="table-wrap"><table class="orders">
            <caption class="visually-hidden">Work orders, newest first</caption>
            <thead><tr><th scope="col">Order</th><th scope="col">Customer</th><th scope="col">Job</th>
              <th scope="col">Status</th><th scope="col">Progress</th><th scope="col">Created</th></tr></thead>
            <tbody>
              ${orders.map((o) => html`<tr key=${o.id}>
                <th scope="row"><${Link} href=${"/orders/" + o.id}>${o.orderNumber}<//></th>
                <td><${Link} href=${address({ ...filters, customer: o.customer.id })}
                  title=${"Only " + o.customer.name + "’s orders"}>${o.customer.name}<//></td>
                <td>${o.jobLine || "—"}</td>
                <td><${Badge} status=${o.status} order=${true} /></td>
                <td>${progress(o.tasks)}</td>
                <td><${Time} iso=${o.createdAt} /></td>
              </tr>`)}
            </tbody>
          </table></div>
          <p class="paging" role="status">Showing ${orders.length} work order${orders.length === 1 ? "" : "s"}.</p>
          <${ShowMore} list=${list} />`
        : html`<p class="empty">No work orders match.</p>`
      : null}`;
}
