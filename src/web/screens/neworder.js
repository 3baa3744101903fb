// New work order (Sales and admins): pick or create the customer, tick the production
// departments, the delivery flags, what the job is, an optional quote.
import { gql } from "../lib/graphql.js";
import { html, useEffect, useRef, useState } from "../lib/html.js";
import { Link, navigate } from "../lib/router.js";
import { CustomerDialog } from "./customer.js";
import { JobFields, jobInput, jobValues } from "./order/job.js";
import { request, useOnce, useQuery } from "../lib/data.js";
import {
  Checkbox,
  Field,
  FieldError,
  FormErrors,
  LateQuestion,
  duePassed,
  errorsFor,
  warningsText,
} from "../lib/forms.js";
import { ErrorMessage, Loading, RetryMessage, messageOf } from "../lib/messages.js";
import { amountHint, inputInstant, readAmount, useId, useTitle } from "../lib/ui.js";

export const NEW_WORK_ORDER_FORM = gql`
  query NewWorkOrderForm {
    departments { code name chosenPerOrder }
  }
`;

export const CUSTOMER_SEARCH = gql`
  query CustomerSearch($search: String) {
    customers(search: $search, first: 8) {
      edges { node { id name } }
    }
  }
`;

export const CREATE_WORK_ORDER = gql`
  mutation CreateWorkOrder($input: CreateWorkOrderInput!) {
    createWorkOrder(input: $input) {
      workOrder { id orderNumber }
      userErrors { code field message }
      warnings { code message }
    }
  }
`;

// The job's problems (job.*, details.*) show in its fieldset (JobFields); the fields
// that show their own message: the others' messages are in the form's summary.
const KNOWN_FIELDS = ["customerId", "departmentCodes", "details", "job", "quote", "dueAt", "deliveryOnly"];

// "Customer": type to search, pick one of the matches, or create the customer here (with
// a contact and an address, in a dialog).
function CustomerPicker({ value, onChange, error }) {
  const [text, setText] = useState("");
  const [matches, setMatches] = useState([]);
  const [problem, setProblem] = useState("");
  const [creating, setCreating] = useState(false);
  const inputId = useId("customer");
  const listId = useId("matches");
  const timer = useRef(null);

  useEffect(() => {
    clearTimeout(timer.current);
    if (value) return undefined;
    timer.current = setTimeout(() => {
      request(CUSTOMER_SEARCH, { search: text.trim() || null }).then(
        (data) => setMatches(data.customers.edges.map((e) => e.node)),
        (failure) => setProblem(messageOf(failure)),
      );
    }, 200);
    return () => clearTimeout(timer.current);
  }, [text, value]);

  if (value) {
    return html`<div class="field">
      <span class="label" id=${inputId}>Customer</span>
      <p class="picked" aria-labelledby=${inputId}><strong>${value.name}</strong>
        <button type="button" class="small" onClick=${() => { onChange(null); setText(""); }}>Change customer</button></p>
      <${FieldError} id=${inputId + "-error"} error=${error} />
    </div>`;
  }
  const exact = matches.some((m) => m.name.toLowerCase() === text.trim().toLowerCase());
  const describedBy = [listId, error ? inputId + "-error" : null].filter(Boolean).join(" ");
  return html`<div class="field">
    <label for=${inputId}>Customer<span class="required" aria-hidden="true"> (required)</span></label>
    <input id=${inputId} type="search" value=${text} autocomplete="off" required
      placeholder="Type to search customers" aria-describedby=${describedBy}
      aria-invalid=${error ? "true" : undefined}
      onInput=${(e) => setText(e.currentTarget.value)} />
    <${FieldError} id=${inputId + "-error"} error=${error} />
    <fieldset class="matches" id=${listId}>
      <legend>${matches.length ? "Pick a customer" : "No customer matches"}</legend>
      ${matches.map((m) => html`<label class="match" key=${m.id}>
        <input type="radio" name=${listId} value=${m.id} onChange=${() => onChange(m)} /> ${m.name}
      </label>`)}
      ${text.trim() && !exact
        ? html`<button type="button" class="small" onClick=${() => setCreating(true)}>
            Create customer “${text.trim()}”</button>`
        : null}
    </fieldset>
    <${ErrorMessage}>${problem}<//>
    ${creating
      ? html`<${CustomerDialog} name=${text.trim()} onClose=${() => setCreating(false)} onSaved=${onChange} />`
      : null}
  </div>`;
}

export function NewWorkOrder() {
  useTitle("New work order");
  const form = useQuery(NEW_WORK_ORDER_FORM);
  const [customer, setCustomer] = useState(null);
  const [codes, setCodes] = useState([]);
  // Stock goods: no production, nothing to make; the server holds the rule.
  const [deliveryOnly, setDeliveryOnly] = useState(false);
  const [flags, setFlags] = useState({ needsInstallation: false, needsTransport: false, needsRepair: false });
  const [job, setJob] = useState(jobValues(null));
  const [amount, setAmount] = useState("");
  const [currency, setCurrency] = useState("EUR");
  const [due, setDue] = useState("");
  const [rush, setRush] = useState(false);
  // Asking whether a due date already passed is meant (LateQuestion).
  const [late, setLate] = useState(false);
  // One key per submission, kept across retries of it (useOnce): a double click or a
  // retry after a lost answer makes one order.
  const { errors, setErrors, failure, busy, held, send } = useOnce();

  const production = form.data ? form.data.departments.filter((d) => d.chosenPerOrder) : [];

  // After a refused submit, keyboard and screen reader users land on the first problem.
  useEffect(() => {
    if (!errors.length) return;
    const invalid = document.querySelector('form [aria-invalid="true"], form .field-error, form [role="alert"]');
    if (invalid) {
      if (!invalid.matches("input, select, textarea")) invalid.setAttribute("tabindex", "-1");
      invalid.focus();
    }
  }, [errors]);

  function toggle(code, on) {
    setCodes((now) => (on ? [...now, code] : now.filter((c) => c !== code)));
  }

  async function submit(event, anyway = false) {
    if (event) event.preventDefault();
    if (held) {
      // What was sent before, as it was sent.
      await send(CREATE_WORK_ORDER, "createWorkOrder", null, opened);
      return;
    }
    const local = [];
    if (!customer) local.push({ field: "customerId", message: "Pick a customer, or create one." });
    // The shop's notation ("1.250,00") or the plain one, sent plain.
    const quote = amount.trim() ? readAmount(amount) : null;
    if (amount.trim() && quote === null) local.push({ field: "quote.amount", message: amountHint() });
    if (local.length) {
      setErrors(local);
      return;
    }
    const asking = !anyway && duePassed(due);
    setLate(asking);
    if (asking) return;
    await send(CREATE_WORK_ORDER, "createWorkOrder", {
      customerId: customer.id,
      departmentCodes: deliveryOnly ? [] : production.filter((d) => codes.includes(d.code)).map((d) => d.code),
      job: jobInput(job),
      deliveryOnly,
      ...flags,
      quote: quote === null ? null : { amount: quote, currency: currency.trim().toUpperCase() },
      // The shop's date and time (PRESSROOM_TIME_ZONE), sent as the instant it is.
      dueAt: due ? inputInstant(due) : null,
      priority: rush ? "RUSH" : "NORMAL",
    }, opened);
  }

  // The order's page says what the server warned of (an order taken late).
  function opened(payload) {
    const warned = warningsText(payload);
    navigate("/orders/" + payload.workOrder.id, { state: { notice: warned && `Work order created. ${warned}` } });
  }

  if (!form.data) {
    return html`<h1>New work order</h1>${form.error ? html`<${ErrorMessage} error=${form.error} />` : html`<${Loading} />`}`;
  }
  const deptError = errorsFor(errors, "departmentCodes");
  const deliveryError = errorsFor(errors, "deliveryOnly");
  return html`<h1>New work order</h1>
    <form class="stack narrow" onSubmit=${submit} novalidate>
      <fieldset class="as-sent" disabled=${held}>
        <${CustomerPicker} value=${customer} onChange=${setCustomer} error=${errorsFor(errors, "customerId")} />
        <fieldset aria-describedby=${deptError || deliveryError ? "dept-error" : undefined}>
          <legend>Production departments</legend>
          <p class="hint">Each gets one task, in the order the shop's routing sets; delivery is always added.</p>
          ${deliveryOnly
            ? null
            : html`<div class="checks">
                ${production.map((d) => html`<${Checkbox} key=${d.code} label=${d.name}
                  checked=${codes.includes(d.code)} onChange=${(on) => toggle(d.code, on)} />`)}
              </div>`}
          <${Checkbox} label="Delivery only: nothing to make (stock goods)" checked=${deliveryOnly}
            onChange=${setDeliveryOnly} />
          <${FieldError} id="dept-error" error=${deptError || deliveryError} />
        </fieldset>
        <fieldset>
          <legend>On delivery</legend>
          <div class="checks">
            <${Checkbox} label="Needs installation" checked=${flags.needsInstallation}
              onChange=${(on) => setFlags({ ...flags, needsInstallation: on })} />
            <${Checkbox} label="Needs transport" checked=${flags.needsTransport}
              onChange=${(on) => setFlags({ ...flags, needsTransport: on })} />
            <${Checkbox} label="Needs repair" checked=${flags.needsRepair}
              onChange=${(on) => setFlags({ ...flags, needsRepair: on })} />
          </div>
        </fieldset>
        <fieldset>
          <legend>When</legend>
          <div class="row">
            <${Field} label="Due" type="datetime-local" value=${due} onInput=${setDue}
              hint="Leave empty for no due date." error=${errorsFor(errors, "dueAt")} />
          </div>
          <${Checkbox} label="Rush: first in every queue" checked=${rush} onChange=${setRush} />
        </fieldset>
        <fieldset>
          <legend>The job</legend>
          <${JobFields} values=${job} onChange=${setJob} errors=${errors} />
        </fieldset>
        <fieldset>
          <legend>Quote (optional)</legend>
          <div class="row">
            <${Field} label="Quote amount" value=${amount} onInput=${setAmount} inputmode="decimal"
              hint="Leave empty for no quote." error=${errorsFor(errors, "quote.amount")} />
            <${Field} label="Currency" value=${currency} onInput=${setCurrency} maxlength="3" class="short"
              error=${errorsFor(errors, "quote.currency")} />
          </div>
        </fieldset>
      </fieldset>
      <${FormErrors} errors=${errors} fields=${KNOWN_FIELDS} />
      <${RetryMessage} failure=${failure} button="Create work order" what="this order" verb="created" />
      ${late
        ? html`<${LateQuestion} question="Create it anyway?" action="Create it anyway"
            onYes=${() => submit(null, true)}
            onNo=${() => { setLate(false); document.querySelector('form input[type="datetime-local"]').focus(); }} />`
        : null}
      <div class="actions">
        <button type="submit" class="primary" aria-busy=${busy ? "true" : undefined}>Create work order</button>
        <${Link} href="/orders">Back to work orders<//>
      </div>
    </form>`;
}
