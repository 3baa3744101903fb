// Customers (Sales, Accounts, admins: whoever the server lets list them): a list with a
// search (?q=) and "New customer", and a customer's page with their contact and address
// ("Edit customer" when the server offers EDIT), their work orders a page at a time, and
// what they owe for those who may read the ledger (the server's READS_LEDGER, asked with
// @include so nobody gets a FORBIDDEN field).
import { gql } from "../lib/graphql.js";
import { html, useState } from "../lib/html.js";
import { useTypedFollowing } from "../lib/forms.js";
import { Link, navigate, query } from "../lib/router.js";
import { rolesOf } from "../lib/session.js";
import { RefreshButton, ShowMore, usePages, useQuery, useRefreshOnVisible } from "../lib/data.js";
import { ErrorMessage, Loading } from "../lib/messages.js";
import { Badge, Time, TimeBadges, addressLines, balances, possessive, useId, useTitle } from "../lib/ui.js";
import { CustomerCard, CustomerDialog } from "./customer.js";

export const CUSTOMER_LIST = gql`
  query CustomerList($search: String, $after: String, $seesLedger: Boolean!) {
    customers(search: $search, first: 25, after: $after) {
      pageInfo { hasNextPage endCursor }
      edges {
        node {
          id name contactName phone email
          address { lines postcode city country given }
          balance @include(if: $seesLedger) { amount currency }
        }
      }
    }
  }
`;

export const CUSTOMER_PAGE = gql`
  query CustomerPage($id: ID!, $seesLedger: Boolean!) {
    customer(id: $id) {
      id name contactName email phone notes allowedActions
      address { lines postcode city country given }
      balance @include(if: $seesLedger) { amount currency }
    }
  }
`;

export const CUSTOMER_WORK_ORDERS = gql`
  query CustomerWorkOrders($customerId: ID!, $after: String) {
    workOrders(customerId: $customerId, first: 25, after: $after) {
      pageInfo { hasNextPage endCursor }
      edges { node { id orderNumber status jobLine createdAt dueAt priority isLate hold { reason } } }
    }
  }
`;

function where(address) {
  const lines = addressLines(address);
  return lines.length ? lines.join(", ") : "—";
}

export function Customers({ me, path }) {
  useTitle("Customers");
  const roles = rolesOf(me);
  const search = query(path).get("q") || "";
  const [typed, setTyped] = useTypedFollowing(search);
  const [creating, setCreating] = useState(false);
  const searchId = useId("search");
  const list = usePages(
    CUSTOMER_LIST,
    { search: search || null, seesLedger: roles.accounts },
    (data) => data.customers,
  );
  // Read again on "Refresh", and when the person comes back to the tab.
  useRefreshOnVisible(list.refresh);

  function submit(event) {
    event.preventDefault();
    navigate("/customers" + (typed.trim() ? "?q=" + encodeURIComponent(typed.trim()) : ""), { replace: true });
  }

  const customers = list.items;
  return html`<div class="title-row">
      <h1>Customers</h1>
      <div class="actions">
        <${RefreshButton} onClick=${list.refresh} busy=${list.loading && Boolean(list.data)} />
        ${roles.sales
          ? html`<button type="button" class="primary" onClick=${() => setCreating(true)}>New customer</button>`
          : null}
      </div>
    </div>
    <form class="filters" role="search" onSubmit=${submit}>
      <div class="field">
        <label for=${searchId}>Search customers</label>
        <input id=${searchId} type="search" value=${typed} placeholder="Part of the name"
          onInput=${(e) => setTyped(e.currentTarget.value)} />
      </div>
      <button type="submit">Search</button>
    </form>
    <${ErrorMessage} error=${list.error} />
    ${!list.data && list.loading ? html`<${Loading} what="Loading customers" />` : null}
    ${list.data
      ? customers.length
        ? html`<div class="table-wrap orders-wrap"><table class="customers">
            <caption class="visually-hidden">Customers, in the order they were added</caption>
            <thead><tr><th scope="col">Customer</th><th scope="col">Contact</th><th scope="col">Address</th>
              ${roles.accounts ? html`<th scope="col" class="num">Balance (positive: owes us)</th>` : null}</tr></thead>
            <tbody>${customers.map((c) => html`<tr key=${c.id}>
              <th scope="row"><${Link} href=${"/customers/" + c.id}>${c.name}<//></th>
              <td data-label="Contact">${[c.contactName, c.phone, c.email].filter(Boolean).join(" · ") || "—"}</td>
              <td data-label="Address">${where(c.address)}</td>
              ${roles.accounts ? html`<td class="num" data-label="Balance">${balances(c.balance)}</td>` : null}
            </tr>`)}</tbody>
          </table></div>
          <p class="paging" role="status">Showing ${customers.length} customer${customers.length === 1 ? "" : "s"}.</p>
          <${ShowMore} list=${list} />`
        : html`<p class="empty">${search ? "No customers match." : "No customers yet."}</p>`
      : null}
    ${creating
      ? html`<${CustomerDialog} name=${typed} onClose=${() => setCreating(false)}
          onSaved=${(customer) => navigate("/customers/" + customer.id)} />`
      : null}`;
}

function CustomerOrders({ id, list }) {
  const orders = list.items;
  return html`<section aria-labelledby="customer-orders">
    <div class="title-row">
      <h2 id="customer-orders">Work orders</h2>
      <${Link} href=${"/orders?customer=" + encodeURIComponent(id)}>Filter them in the work-order list<//>
    </div>
    <${ErrorMessage} error=${list.error} />
    ${!list.data && list.loading ? html`<${Loading} what="Loading work orders" />` : null}
    ${list.data
      ? orders.length
        ? html`<div class="table-wrap orders-wrap"><table class="orders">
            <caption class="visually-hidden">The customer's work orders, newest first</caption>
            <thead><tr><th scope="col">Order</th><th scope="col">Job</th><th scope="col">Status</th>
              <th scope="col">Due</th><th scope="col">Created</th></tr></thead>
            <tbody>${orders.map((o) => html`<tr key=${o.id}>
              <th scope="row"><${Link} href=${"/orders/" + o.id}>${o.orderNumber}<//></th>
              <td data-label="Job">${o.jobLine || "—"}</td>
              <td data-label="Status"><${Badge} status=${o.status} order=${true} /> <${TimeBadges} order=${o} /></td>
              <td data-label="Due">${o.dueAt ? html`<${Time} iso=${o.dueAt} />` : "—"}</td>
              <td data-label="Created"><${Time} iso=${o.createdAt} /></td>
            </tr>`)}</tbody>
          </table></div>
          <${ShowMore} list=${list} label="Show older orders" />`
        : html`<p class="empty">No work orders yet.</p>`
      : null}
  </section>`;
}

export function CustomerPage({ id, me }) {
  const roles = rolesOf(me);
  const page = useQuery(CUSTOMER_PAGE, { id, seesLedger: roles.accounts });
  const orders = usePages(CUSTOMER_WORK_ORDERS, { customerId: id }, (data) => data.workOrders);
  const [editing, setEditing] = useState(false);
  const customer = page.data && page.data.customer;
  useTitle(customer ? customer.name : "Customer");
  function refresh() {
    page.refetch();
    orders.refresh();
  }
  // Read again on "Refresh", and when the person comes back to the tab.
  useRefreshOnVisible(refresh);

  if (!customer) {
    return html`<p class="crumbs"><${Link} href="/customers">Customers<//></p>
      <h1>Customer</h1>
      ${page.error
        ? html`<${ErrorMessage} error=${page.error} />`
        : page.loading ? html`<${Loading} />` : html`<p>No such customer.</p>`}`;
  }
  return html`<p class="crumbs"><${Link} href="/customers">Customers<//> › ${customer.name}</p>
    <div class="title-row">
      <h1>${customer.name}</h1>
      <div class="actions">
        <${RefreshButton} onClick=${refresh} busy=${page.loading || orders.loading} />
        ${customer.allowedActions.includes("EDIT")
          ? html`<button type="button" onClick=${() => setEditing(true)}>Edit customer</button>`
          : null}
      </div>
    </div>
    <section aria-labelledby="customer-contact">
      <h2 id="customer-contact">Contact and address</h2>
      <${CustomerCard} customer=${customer} />
    </section>
    ${customer.balance
      ? html`<p class="lead">Balance: <strong>${balances(customer.balance)}</strong>${" "}
          <span class="hint">(positive: the customer owes us)</span>${" "}
          <${Link} href=${"/accounts/" + customer.id}>${possessive(customer.name)} ledger<//></p>`
      : null}
    <${CustomerOrders} id=${customer.id} list=${orders} />
    ${editing
      ? html`<${CustomerDialog} customer=${customer} onClose=${() => setEditing(false)}
          onSaved=${(saved) => page.setData((now) => ({ customer: { ...now.customer, ...saved } }))} />`
      : null}`;
}
