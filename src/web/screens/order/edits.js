// The order page's two editing dialogs: its schedule (due date and Rush) and its quote,
// each saved against the version the page read (STALE_OBJECT when someone was quicker).
import { gql } from "../../lib/graphql.js";
import { html, useState } from "../../lib/html.js";
import { request, useSubmit } from "../../lib/data.js";
import { Checkbox, Field, FormErrors, LateQuestion, duePassed, errorsFor, warningsText } from "../../lib/forms.js";
import { ErrorMessage } from "../../lib/messages.js";
import { Dialog, amountHint, decimal, inputInstant, inputValue, money, readAmount } from "../../lib/ui.js";

export const EDIT_QUOTE = gql`
  mutation EditQuote($input: UpdateWorkOrderQuoteInput!) {
    updateWorkOrderQuote(input: $input) {
      workOrder { id version quote { amount currency } }
      userErrors { code field message }
    }
  }
`;

// On STALE_OBJECT: the quote and version someone else saved.
export const CURRENT_QUOTE = gql`
  query CurrentQuote($id: ID!) {
    workOrder(id: $id) { id version quote { amount currency } }
  }
`;

export const RESCHEDULE = gql`
  mutation Reschedule($input: RescheduleWorkOrderInput!) {
    rescheduleWorkOrder(input: $input) { changed userErrors { code field message } warnings { code message } }
  }
`;

export function Rescheduler({ order, onClose, onSaved }) {
  const [due, setDue] = useState(inputValue(order.dueAt));
  const [rush, setRush] = useState(order.priority === "RUSH");
  // Asking whether a due date already passed is meant (LateQuestion).
  const [late, setLate] = useState(false);
  const { errors, failure, busy, submit: send } = useSubmit();

  async function submit(event, anyway = false) {
    if (event) event.preventDefault();
    const asking = !anyway && duePassed(due);
    setLate(asking);
    if (asking) return;
    const input = {
      workOrderId: order.id,
      dueAt: due ? inputInstant(due) : null,
      priority: rush ? "RUSH" : "NORMAL",
      expectedVersion: order.version,
    };
    await send(RESCHEDULE, "rescheduleWorkOrder", { input }, (payload) => {
      onSaved(warningsText(payload));
      onClose();
    });
  }

  return html`<${Dialog} title=${"Reschedule " + order.orderNumber} onClose=${onClose}>
    <form onSubmit=${submit} novalidate>
      <${Field} label="Due" type="datetime-local" value=${due} onInput=${setDue}
        hint="Leave empty for no due date." error=${errorsFor(errors, "dueAt")} />
      <${Checkbox} label="Rush: first in every queue" checked=${rush} onChange=${setRush} />
      <${FormErrors} errors=${errors} fields=${["dueAt"]} />
      <${ErrorMessage} error=${failure} />
      ${late
        ? html`<${LateQuestion} question="Reschedule it anyway?" action="Reschedule it anyway"
            onYes=${() => submit(null, true)}
            onNo=${() => { setLate(false); document.querySelector('dialog input[type="datetime-local"]').focus(); }} />`
        : null}
      <div class="actions">
        <button type="submit" class="primary" aria-busy=${busy ? "true" : undefined}>Save schedule</button>
        <button type="button" onClick=${onClose}>Back</button>
      </div>
    </form>
  <//>`;
}

export function QuoteEditor({ order, onClose, onSaved }) {
  const [amount, setAmount] = useState(order.quote ? decimal(order.quote.amount) : "");
  const [currency, setCurrency] = useState(order.quote ? order.quote.currency : "EUR");
  // The version this edit started from: the server refuses it if the order changed since.
  const [version, setVersion] = useState(order.version);
  const [stale, setStale] = useState(null);
  const [errors, setErrors] = useState([]);
  const [failure, setFailure] = useState(null);
  const [busy, setBusy] = useState(false);

  async function submit(event) {
    event.preventDefault();
    // The shop's notation ("1.250,00") or the plain one, sent plain.
    const plain = readAmount(amount);
    if (plain === null) {
      setErrors([{ field: "amount", message: amountHint() }]);
      return;
    }
    setBusy(true);
    setErrors([]);
    setFailure(null);
    try {
      const { updateWorkOrderQuote: result } = await request(EDIT_QUOTE, {
        input: { workOrderId: order.id, quote: { amount: plain, currency: currency.trim().toUpperCase() }, expectedVersion: version },
      });
      const staleError = result.userErrors.find((e) => e.code === "STALE_OBJECT");
      if (staleError) {
        const { workOrder } = await request(CURRENT_QUOTE, { id: order.id });
        setStale(workOrder.quote ? money(workOrder.quote) : "no quote");
        setVersion(workOrder.version);
        onSaved();
      } else if (result.userErrors.length) {
        setErrors(result.userErrors);
      } else {
        onSaved();
        onClose();
      }
    } catch (error) {
      setFailure(error);
    }
    setBusy(false);
  }

  return html`<${Dialog} title=${"Edit quote of " + order.orderNumber} onClose=${onClose}>
    <form onSubmit=${submit} novalidate>
      ${stale
        ? html`<p class="message notice" role="alert">Someone changed this work order while you were editing:
            the quote is now <strong>${stale}</strong>. Check your amount and save again, or go back.</p>`
        : null}
      <div class="row">
        <${Field} label="Amount" value=${amount} onInput=${setAmount} inputmode="decimal" required=${true}
          error=${errorsFor(errors, "quote.amount", "amount")} />
        <${Field} label="Currency" value=${currency} onInput=${setCurrency} maxlength="3" class="short"
          error=${errorsFor(errors, "quote.currency", "currency")} />
      </div>
      <${FormErrors} errors=${errors} fields=${["quote", "amount", "currency"]} />
      <${ErrorMessage} error=${failure} />
      <div class="actions">
        <button type="submit" class="primary" aria-busy=${busy ? "true" : undefined}>${stale ? "Save quote again" : "Save quote"}</button>
        <button type="button" onClick=${onClose}>Back</button>
      </div>
    </form>
  <//>`;
}
