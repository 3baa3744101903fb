// Admin: payment inboxes. Open one for a payment provider (its address and secret to give
// them, the secret shown once), see what each received and how it was answered, turn it
// off and on, replace its secret (the old one still taken for a day) and delete it.
import { money } from "../../lib/format.js";
import { gql } from "../../lib/graphql.js";
import { html, useState } from "../../lib/html.js";
import { useQuery, useSubmit } from "../../lib/data.js";
import { Field, FormErrors, errorsFor } from "../../lib/forms.js";
import { ErrorMessage, Loading, messageOf } from "../../lib/messages.js";
import { Dialog, Time } from "../../lib/ui.js";
import { act } from "./webhooks.js";

export const PAYMENT_INBOXES = gql`
  query PaymentInboxes {
    paymentInboxes {
      id name currency url createdAt enabled previousSecretValidUntil
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

export const UPDATE_PAYMENT_INBOX = gql`
  mutation UpdatePaymentInbox($input: UpdatePaymentInboxInput!) {
    updatePaymentInbox(input: $input) {
      inbox { id enabled }
      userErrors { code message }
    }
  }
`;

export const ROTATE_PAYMENT_INBOX_SECRET = gql`
  mutation RotatePaymentInboxSecret($input: RotatePaymentInboxSecretInput!) {
    rotatePaymentInboxSecret(input: $input) {
      secret
      inbox { id previousSecretValidUntil }
      userErrors { code message }
    }
  }
`;

export const DELETE_PAYMENT_INBOX = gql`
  mutation DeletePaymentInbox($input: DeletePaymentInboxInput!) {
    deletePaymentInbox(input: $input) {
      deletedInboxId
      userErrors { code message }
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
      <${FormErrors} errors=${errors} fields=${["name", "currency"]} />
      <${ErrorMessage} error=${failure} />
      <div class="actions"><button type="submit" class="primary">Create payment inbox</button></div>
    </form>
  </section>`;
}

function Inbox({ inbox, onChanged }) {
  const [error, setError] = useState("");
  const [secret, setSecret] = useState(null);
  const [deleting, setDeleting] = useState(false);

  async function run(mutation, field, input, after) {
    setError("");
    try {
      after(await act(mutation, field, { inboxId: inbox.id, ...input }));
      onChanged();
    } catch (failure) {
      setError(messageOf(failure));
    }
  }

  const overlap = inbox.previousSecretValidUntil && new Date(inbox.previousSecretValidUntil) > new Date();
  return html`<section class="panel" aria-label=${"Payment inbox " + inbox.name}>
    <h3>${inbox.name} (${inbox.currency})</h3>
    <p><code>${inbox.url}</code></p>
    <p>${inbox.enabled
      ? html`<strong>Taking notifications.</strong>`
      : html`<strong>Turned off:</strong> every notification is refused.`}
      ${overlap ? html` The secret before the last replacement is taken until <${Time} iso=${inbox.previousSecretValidUntil} />.` : null}</p>
    ${secret
      ? html`<div class="secret" role="status">
          <p>The secret was replaced. Give the provider the new one, shown only this once
            (the old one is still taken for a day):</p>
          <p><code class="secret-value">${secret}</code></p>
          <button type="button" class="small" onClick=${() => setSecret(null)}>Done, hide the secret</button>
        </div>`
      : null}
    <${ErrorMessage}>${error}<//>
    <div class="actions">
      <button type="button" class="small"
        onClick=${() => run(UPDATE_PAYMENT_INBOX, "updatePaymentInbox", { enabled: !inbox.enabled }, () => {})}>
        ${inbox.enabled ? "Turn off" : "Turn on"}</button>
      <button type="button" class="small"
        onClick=${() => run(ROTATE_PAYMENT_INBOX_SECRET, "rotatePaymentInboxSecret", {}, (p) => setSecret(p.secret))}>
        Replace secret</button>
      <button type="button" class="small danger" onClick=${() => setDeleting(true)}>Delete</button>
    </div>
    ${deleting
      ? html`<${Dialog} title=${"Delete the payment inbox " + inbox.name + "?"} onClose=${() => setDeleting(false)}>
          <p>It refuses every notification from now on, and what it received is forgotten;
            the payments it posted stay in the ledger.</p>
          <${ErrorMessage}>${error}<//>
          <div class="actions">
            <button type="button" class="danger"
              onClick=${() => run(DELETE_PAYMENT_INBOX, "deletePaymentInbox", {}, () => setDeleting(false))}>Delete payment inbox</button>
            <button type="button" onClick=${() => setDeleting(false)}>Keep it</button>
          </div>
        <//>`
      : null}
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
      ? inboxes.map((inbox) => html`<${Inbox} key=${inbox.id} inbox=${inbox} onChanged=${list.refetch} />`)
      : html`<p class="hint">None yet.</p>`}`;
}
