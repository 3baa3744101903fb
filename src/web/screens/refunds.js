// Refunds due (Accounts): the customers owed money back on cancelled orders
// (customers(refundDue: true), each with its total per currency), and on a customer's
// ledger the cancelled orders it is owed on, each with "Post refund", which opens the
// entry form as a refund of what is due against that order. The server says what is
// due (WorkOrder.refundDue); a REFUND or CREDIT against the order settles it.
import { gql } from "../lib/graphql.js";
import { html } from "../lib/html.js";
import { Link } from "../lib/router.js";
import { ShowMore } from "../lib/data.js";
import { ErrorMessage, Loading } from "../lib/messages.js";
import { balances, money } from "../lib/ui.js";

export const REFUNDS_DUE = gql`
  query RefundsDue($after: String) {
    customers(refundDue: true, first: 25, after: $after) {
      pageInfo { hasNextPage endCursor }
      edges { node { id name refundDue { amount currency } } }
    }
  }
`;

// A customer's cancelled orders (the newest 100), with what each is owed back.
export const CUSTOMER_REFUNDS = gql`
  query CustomerRefunds($customerId: ID!) {
    workOrders(customerId: $customerId, status: CANCELLED, first: 100) {
      edges { node { id orderNumber jobLine refundDue { amount currency } } }
    }
  }
`;

// The Accounts screen's list (`list`: usePages of REFUNDS_DUE, read again with the page).
export function RefundsDue({ list }) {
  const customers = list.items;
  return html`<section aria-labelledby="refunds-heading">
    <h2 id="refunds-heading">Refunds due</h2>
    <p class="hint">Customers who paid for orders that were cancelled. A refund or a credit
      posted against the order settles it.</p>
    <${ErrorMessage} error=${list.error} />
    ${!list.data && list.loading ? html`<${Loading} what="Loading refunds due" />` : null}
    ${list.data
      ? customers.length
        ? html`<div class="table-wrap"><table class="refunds">
            <caption class="visually-hidden">Customers owed money back on cancelled orders</caption>
            <thead><tr><th scope="col">Customer</th><th scope="col" class="num">Refund due</th></tr></thead>
            <tbody>${customers.map((c) => html`<tr key=${c.id}>
              <th scope="row"><${Link} href=${"/accounts/" + c.id}>${c.name}<//></th>
              <td class="num">${balances(c.refundDue)}</td>
            </tr>`)}</tbody>
          </table></div>
          <${ShowMore} list=${list} />`
        : html`<p class="empty">No refunds are due.</p>`
      : null}
  </section>`;
}

// On a customer's ledger: its cancelled orders with a refund due (`refunds`: useQuery of
// CUSTOMER_REFUNDS); `onRefund(order, amount)` opens the entry form for it.
export function OrdersToRefund({ refunds, onRefund }) {
  if (refunds.error) return html`<${ErrorMessage} error=${refunds.error} />`;
  if (!refunds.data) return null;
  const rows = refunds.data.workOrders.edges
    .map(({ node }) => node)
    .flatMap((order) => order.refundDue.map((due) => ({ order, due })));
  if (!rows.length) return null;
  return html`<section class="panel" aria-labelledby="to-refund-heading">
    <h2 id="to-refund-heading">Refunds due</h2>
    <p class="hint">Cancelled orders this customer paid for. A refund or a credit posted
      against the order settles it.</p>
    <div class="table-wrap"><table class="to-refund">
      <caption class="visually-hidden">Cancelled orders with a refund due</caption>
      <thead><tr><th scope="col">Work order</th><th scope="col" class="num">Refund due</th>
        <th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
      <tbody>${rows.map(({ order, due }) => html`<tr key=${order.id + due.currency}>
        <th scope="row"><${Link} href=${"/orders/" + order.id}>${order.orderNumber}<//>
          ${order.jobLine ? html` · ${order.jobLine}` : null}</th>
        <td class="num">${money(due)}</td>
        <td><button type="button" onClick=${() => onRefund(order, due)}>Post refund<span
          class="visually-hidden"> of ${money(due)} on ${order.orderNumber}</span></button></td>
      </tr>`)}</tbody>
    </table></div>
  </section>`;
}
