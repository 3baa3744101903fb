// Job tickets to print (A4 or Letter, one a page): the order number large, the rush mark,
// customer, job, due date, details, a box to tick for each department, and the QR code
// the server made of the order's page. /orders/:id/ticket for one, /tickets?ids=a,b for a
// selection from the work-order list. "Download PDF" fetches the same tickets as one PDF
// the server renders (a ticket a page).
import { DownloadButton } from "../lib/download.js";
import { gql } from "../lib/graphql.js";
import { html, useEffect, useState } from "../lib/html.js";
import { Link } from "../lib/router.js";
import { transport } from "../lib/session.js";
import { request } from "../lib/data.js";
import { ErrorMessage, Loading } from "../lib/messages.js";
import { useTitle } from "../lib/ui.js";

const TICKET = gql`
  query Ticket($id: ID!) {
    workOrder(id: $id) {
      id orderNumber jobLine priority
      customer { name }
      detailLines { label value }
      ticket { url qrSvg due departments { id name } }
    }
  }
`;

function Ticket({ order }) {
  const qr = "data:image/svg+xml;charset=utf-8," + encodeURIComponent(order.ticket.qrSvg);
  return html`<article class="ticket" aria-label=${"Job ticket " + order.orderNumber}>
    <header>
      <div>
        <h1 class="ticket-number">${order.orderNumber}</h1>
        ${order.priority === "RUSH" ? html`<p class="ticket-rush">RUSH</p>` : null}
        <p class="ticket-customer">${order.customer.name}</p>
        ${order.jobLine ? html`<p class="ticket-job">${order.jobLine}</p>` : null}
        ${order.ticket.due ? html`<p class="ticket-due">${order.ticket.due}</p>` : null}
      </div>
      <img class="ticket-qr" src=${qr} alt=${"QR code: " + order.ticket.url} />
    </header>
    ${order.detailLines.length
      ? html`<h2>Details</h2>
        <dl class="ticket-details">
          ${order.detailLines.map((line, i) => html`<div key=${i}><dt>${line.label}</dt><dd>${line.value}</dd></div>`)}
        </dl>`
      : null}
    <h2>Departments</h2>
    <ul class="ticket-departments">
      ${order.ticket.departments.map((d) => html`<li key=${d.id}><span class="tick" aria-hidden="true"></span>${d.name}</li>`)}
    </ul>
    <p class="ticket-url">${order.ticket.url}</p>
  </article>`;
}

export function Tickets({ ids }) {
  const [state, setState] = useState({ orders: null, error: null });
  useTitle(ids.length === 1 ? "Job ticket" : `${ids.length} job tickets`);
  const key = ids.join(",");

  useEffect(() => {
    let live = true;
    Promise.all(ids.map((id) => request(TICKET, { id }))).then(
      (answers) => live && setState({ orders: answers.map((a) => a.workOrder).filter(Boolean), error: null }),
      (error) => live && setState({ orders: null, error }),
    );
    return () => {
      live = false;
    };
  }, [key]);

  if (state.error) return html`<${ErrorMessage} error=${state.error} />`;
  if (!state.orders) return html`<${Loading} what="Loading the tickets" />`;
  if (!state.orders.length) {
    return html`<h1>Job ticket</h1><p>No such work order. <${Link} href="/orders">Work orders</${Link}></p>`;
  }
  return html`
    <div class="ticket-actions">
      <button type="button" class="primary" onClick=${() => window.print()}>Print</button>
      <${DownloadButton} label="Download PDF" load=${() => transport.tickets(state.orders.map((o) => o.id))} />
      <${Link} href=${ids.length === 1 ? "/orders/" + ids[0] : "/orders"}>Back</${Link}>
      <span class="hint">One ticket a page, on A4 or Letter.</span>
    </div>
    ${state.orders.map((order) => html`<${Ticket} key=${order.id} order=${order} />`)}`;
}
