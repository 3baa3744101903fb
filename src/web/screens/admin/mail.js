// Admin: email. Every order's emails, newest first, the failed ones alone at a click: to
// whom, what, why not, with Resend where the server offers it.
import { gql } from "../../lib/graphql.js";
import { html, useState } from "../../lib/html.js";
import { ShowMore, usePages } from "../../lib/data.js";
import { Checkbox } from "../../lib/forms.js";
import { ErrorMessage, Loading } from "../../lib/messages.js";
import { MailList } from "../order/mail.js";

export const ADMIN_MAIL = gql`
  query AdminMail($status: WebhookDeliveryStatus, $after: String) {
    mailMessages(status: $status, first: 25, after: $after) {
      pageInfo { hasNextPage endCursor }
      edges {
        node {
          id kind recipient orderNumber subject status attempts error lastAttemptAt nextAttemptAt sentAt createdAt allowedActions
        }
      }
    }
  }
`;

export function AdminMail() {
  const [failedOnly, setFailedOnly] = useState(true);
  const list = usePages(ADMIN_MAIL, { status: failedOnly ? "DEAD" : null }, (data) => data.mailMessages);

  function resent(message) {
    list.mapNodes((shown) => (shown.id === message.id ? { ...shown, ...message } : shown));
  }

  return html`
    <h2>Email</h2>
    <p class="hint">The emails the shop sends customers and Sales. A failed one went nowhere: put its address or the mail server right, then resend it.</p>
    <${Checkbox} label="Failed only" checked=${failedOnly} onChange=${setFailedOnly} />
    <${ErrorMessage} error=${list.error} />
    ${!list.data
      ? html`<${Loading} />`
      : list.items.length
        ? html`<${MailList} messages=${list.items} order=${true} onResent=${resent} />
            <${ShowMore} list=${list} />`
        : html`<p class="empty">${failedOnly ? "No failed emails." : "No emails yet."}</p>`}`;
}
