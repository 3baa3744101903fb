// Admin: payment inboxes. Open one for a payment provider (its address and secret to give
// them, the secret shown once), and see what each received and how it was answered.
import { money } from "../../lib/format.js";
import { gql } from "../../lib/graphql.js";
import { html, useState } from "../../lib/html.js";
import {
  ErrorMessage,
  Field,
  Loading,
  Time,
  errorsFor,
  otherErrors,
  useQuery,
  useSubmit,
} from "../../lib/ui.js";

export const PAYMENT_INBOXES = gql`
  query PaymentInboxes {
    paymentInboxes {
      id name currency url createdAt
      requests(first: 20) {
        receivedAt messageId status error
        entry { id amount { amount currency } customer { name } }
      }
    }
  }
`;

export const CREATE_PAYMENT_INBOX = gql`
  mutation CreatePaymentInbox($input: CreatePaymentInboxInput!) {
    createPaymentInbox(input: $input) {
      secret
      inbox { id name url }
      userErrors { code field message }
    }
  }
`;

function CreateInbox({ onCreated }) {
  const [name, setName] = useState("");
  const [currency, setCurrency] = useState("");
  const [created, setCreated] = useState(null);
  const { errors, failure, submit: send } = useSubmit();

  function submit(event) {
    event.preventDefault();
    const input = { name: name.trim(), currency: currency.trim().toUpperCase() };
    return send(CREATE_PAYMENT_INBOX, "createPaymentInbox", { input }, (result) => {
      setCreated(result);
      setName("");
      setCurrency("");
      onCreated();
    });
  }

  return html`<section class="panel" aria-labelledby="new-inbox">
    <h2 id="new-inbox">New payment inbox</h2>
    <p>A payment provider sends its payment notifications here, signed; each becomes a
      payment in the customer’s ledger, once.</p>
    ${created
      ? html`<div class="secret" role="status">
          <p>Give the provider this address: <code>${created.inbox.url}</code></p>
          <p>and this signing secret, shown only this once:</p>
          <p><code class="secret-value">${created.secret}</code></p>
          <button type="button" class="small" onClick=${() => setCreated(null)}>Done, hide the secret</button>
        </div>`
      : null}
    <form class="stack" onSubmit=${submit} novalidate>
      <div class="row">
        <${Field} label="Inbox name" value=${name} onInput=${setName} required=${true}
          hint="Lowercase letters, digits and hyphens, e.g. bank" error=${errorsFor(errors, "name")} />
        <${Field} label="Currency it takes" value=${currency} onInput=${setCurrency} required=${true}
          hint="e.g. EUR" error=${errorsFor(errors, "currency")} />
      </div>
      <${ErrorMessage}>${otherErrors(errors, ["name", "currency"])}<//>
      <${ErrorMessage} error=${failure} />
      <div class="actions"><button type="submit" class="primary">Create payment inbox</button></div>
    </form>
  </section>`;
}

function Inbox({ inbox }) {
  return html`<section class="panel" aria-label=${"Payment inbox " + inbox.name}>
    <h3>${inbox.name} (${inbox.currency})</h3>
    <p><code>${inbox.url}</code></p>
    ${inbox.requests.length
      ? html`<div class="table-wrap"><table>
          <caption class="visually-hidden">What ${inbox.name} received</caption>
          <thead><tr><th scope="col">Received</th><th scope="col">Notification</th>
            <th scope="col">Answer</th><th scope="col">Posted</th></tr></thead>
          <tbody>${inbox.requests.map((r, i) => html`<tr key=${i}>
            <th scope="row"><${Time} iso=${r.receivedAt} /></th>
            <td>${r.messageId ? html`<code>${r.messageId}</code>` : "–"}</td>
            <td>${r.error ? `${r.status}: ${r.error}` : `${r.status}: accepted`}</td>
            <td>${r.entry ? `${money(r.entry.amount)}, ${r.entry.customer.name}` : "–"}</td>
          </tr>`)}</tbody>
        </table></div>`
      : html`<p class="hint">Nothing received yet.</p>`}
  </section>`;
}

export function Inboxes() {
  const list = useQuery(PAYMENT_INBOXES);
  if (!list.data) {
    return list.error ? html`<${ErrorMessage} error=${list.error} />` : html`<${Loading} />`;
  }
  const inboxes = list.data.paymentInboxes;
  return html`
    <${CreateInbox} onCreated=${list.refetch} />
    <h2>Payment inboxes</h2>
    ${inboxes.length
      ? inboxes.map((inbox) => html`<${Inbox} key=${inbox.id} inbox=${inbox} />`)
      : html`<p class="hint">None yet.</p>`}`;
}
