// Emails about orders (the server's mail outbox): to whom, what, whether it went, when,
// and why not. The order page's panel shows its order's (Sales, admins); the admin's Email
// section every order's. Resend is offered only where the email's allowedActions has it.
import { gql } from "../../lib/graphql.js";
import { html, useState } from "../../lib/html.js";
import { Link } from "../../lib/router.js";
import { request } from "../../lib/data.js";
import { ErrorMessage, messageOf } from "../../lib/messages.js";
import { Time } from "../../lib/ui.js";

export const RESEND_MAIL = gql`
  mutation ResendMail($input: ResendMailMessageInput!) {
    resendMailMessage(input: $input) {
      message {
        id kind recipient orderNumber subject status attempts error lastAttemptAt nextAttemptAt sentAt createdAt allowedActions
      }
      userErrors { code message }
    }
  }
`;

const KIND = {
  PROOF_READY: "Proof ready for approval",
  CHANGES_REQUESTED: "Changes requested (to Sales)",
  READY_FOR_PICKUP: "Ready for pickup",
  OUT_FOR_DELIVERY: "Out for delivery",
  DUE_LATER: "Due date moved later",
};

// Its state in words, with the badge's colour; a waiting one that failed an attempt says so.
const STATE = {
  DELIVERED: ["Sent", "completed"],
  DEAD: ["Failed", "cancelled"],
  PENDING: ["Waiting to be sent", "held"],
};
const RETRYING = { PENDING: ["Failed, trying again", "held"] };

function state(message) {
  return (message.attempts && RETRYING[message.status]) || STATE[message.status];
}

function When({ message }) {
  if (message.sentAt) return html`Sent <${Time} iso=${message.sentAt} />`;
  if (message.nextAttemptAt && message.attempts) {
    return html`Tried <${Time} iso=${message.lastAttemptAt} />; next try <${Time} iso=${message.nextAttemptAt} />`;
  }
  if (message.lastAttemptAt) return html`Last tried <${Time} iso=${message.lastAttemptAt} />`;
  return html`Made <${Time} iso=${message.createdAt} />`;
}

// The emails as a list; `order` adds each one's order (the admin's list of every order's).
export function MailList({ messages, order = false, onResent }) {
  const [said, setSaid] = useState("");
  const [error, setError] = useState("");

  async function resend(message) {
    setSaid("");
    setError("");
    try {
      const { resendMailMessage: answer } = await request(RESEND_MAIL, { input: { messageId: message.id } });
      if (answer.userErrors.length) {
        setError(answer.userErrors.map((e) => e.message).join(" "));
        return;
      }
      setSaid(`The email to ${message.recipient} will be sent again.`);
      onResent(answer.message);
    } catch (failure) {
      setError(messageOf(failure));
    }
  }

  return html`
    ${said ? html`<p class="message success" role="status"><span aria-hidden="true">✓ </span>${said}</p>` : null}
    <${ErrorMessage}>${error}<//>
    <ul class="mails">
      ${messages.map((m) => {
        const [words, tone] = state(m);
        return html`<li key=${m.id}>
          <p class="mail-what"><strong>${KIND[m.kind] || m.kind}</strong>
            ${order ? html` · <${Link} href=${"/orders?q=" + encodeURIComponent(m.orderNumber)}>${m.orderNumber}<//>` : null}
            ${" "}<span class=${"badge " + tone}>${words}</span></p>
          <p>To <span class="mail-to">${m.recipient}</span>${m.subject ? html` · “${m.subject}”` : null}</p>
          <p class="hint"><${When} message=${m} />${m.attempts > 1 ? ` (${m.attempts} attempts)` : ""}</p>
          ${m.error ? html`<p class="mail-error">Why: ${m.error}</p>` : null}
          ${m.allowedActions.includes("RESEND")
            ? html`<button type="button" class="small" aria-label=${`Resend the email to ${m.recipient}: ${KIND[m.kind] || m.kind}`}
                onClick=${() => resend(m)}>Resend</button>`
            : null}
        </li>`;
      })}
    </ul>`;
}

// The order page's panel: its emails, newest first.
export function Mail({ order, onChanged }) {
  return html`<section aria-labelledby="mail-heading" class="panel">
    <h2 id="mail-heading">Email</h2>
    ${order.mailMessages.length
      ? html`<${MailList} messages=${order.mailMessages} onResent=${onChanged} />`
      : html`<p class="hint">No emails about this order yet.</p>`}
  </section>`;
}
