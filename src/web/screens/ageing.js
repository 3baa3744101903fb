// Accounts at a glance: what customers owe in all, by how long it has been unpaid
// (receivablesAgeing: the server ages each balance by its oldest unpaid charge), and
// who owes it, sortable by balance.
import { gql } from "../lib/graphql.js";
import { html, useState } from "../lib/html.js";
import { Link } from "../lib/router.js";
import { useQuery } from "../lib/data.js";
import { ErrorMessage, Loading } from "../lib/messages.js";
import { Time, money } from "../lib/ui.js";

const AGEING = gql`
  query Ageing {
    receivablesAgeing {
      asOf
      totals {
        currency owed { amount currency } current { amount currency }
        days31To60 { amount currency } days61To90 { amount currency } over90 { amount currency }
      }
      customers { customer { id name } balance { amount currency } oldestUnpaidAt days bucket }
    }
  }
`;

const AGES = {
  CURRENT: "Up to 30 days",
  DAYS_31_60: "31–60 days",
  DAYS_61_90: "61–90 days",
  OVER_90: "Over 90 days",
};

export function Receivables() {
  const ageing = useQuery(AGEING);
  const [descending, setDescending] = useState(true);
  if (ageing.error) return html`<${ErrorMessage} error=${ageing.error} />`;
  if (!ageing.data) return html`<${Loading} what="Loading what customers owe" />`;
  const { totals, customers } = ageing.data.receivablesAgeing;
  const sorted = [...customers].sort((a, b) => {
    const by = Number(a.balance.amount) - Number(b.balance.amount);
    return descending ? -by : by;
  });
  return html`<section class="receivables" aria-labelledby="owed-heading">
    <h2 id="owed-heading">Owed to us</h2>
    ${totals.length
      ? html`<div class="table-wrap"><table class="ageing-totals">
          <caption class="visually-hidden">Total owed per currency, by age of the oldest unpaid charge</caption>
          <thead><tr><th scope="col">Currency</th><th scope="col" class="num">Total owed</th>
            <th scope="col" class="num">${AGES.CURRENT}</th><th scope="col" class="num">${AGES.DAYS_31_60}</th>
            <th scope="col" class="num">${AGES.DAYS_61_90}</th><th scope="col" class="num">${AGES.OVER_90}</th></tr></thead>
          <tbody>${totals.map((t) => html`<tr key=${t.currency}>
            <th scope="row">${t.currency}</th><td class="num"><strong>${money(t.owed)}</strong></td>
            <td class="num">${money(t.current)}</td><td class="num">${money(t.days31To60)}</td>
            <td class="num">${money(t.days61To90)}</td><td class="num">${money(t.over90)}</td>
          </tr>`)}</tbody>
        </table></div>
        <div class="table-wrap"><table class="ageing">
          <caption class="visually-hidden">Customers who owe us</caption>
          <thead><tr><th scope="col">Customer</th>
            <th scope="col" class="num" aria-sort=${descending ? "descending" : "ascending"}>
              <button type="button" class="sort" onClick=${() => setDescending(!descending)}>
                Balance <span aria-hidden="true">${descending ? "▼" : "▲"}</span>
                <span class="visually-hidden">(sort ${descending ? "smallest" : "largest"} first)</span>
              </button></th>
            <th scope="col">Oldest unpaid charge</th><th scope="col">Age</th></tr></thead>
          <tbody>${sorted.map((c) => html`<tr key=${c.customer.id + c.balance.currency}>
            <th scope="row"><${Link} href=${"/accounts/" + c.customer.id}>${c.customer.name}<//></th>
            <td class="num">${money(c.balance)}</td>
            <td><${Time} iso=${c.oldestUnpaidAt} /> (${c.days} day${c.days === 1 ? "" : "s"})</td>
            <td><span class=${"age " + c.bucket.toLowerCase()}>${AGES[c.bucket]}</span></td>
          </tr>`)}</tbody>
        </table></div>`
      : html`<p class="empty">Nobody owes us anything.</p>`}
  </section>`;
}
