// What a form is made of: labelled fields and checkboxes with their errors, the summary
// of a form's problems, the dialog that asks for a reason, and the question a due date
// already passed asks.
import { html, useEffect, useRef, useState } from "./html.js";
import { inputInstant } from "./format.js";
import { ErrorMessage } from "./messages.js";
import { Dialog, useId } from "./ui.js";

// What a person types into a search field that follows the address: it starts as `value`
// and becomes it again when the address changes (Back, a link), but not on the first
// render, whose effect runs once the screen is shown and would wipe what was typed since.
export function useTypedFollowing(value) {
  const [typed, setTyped] = useState(value);
  const followed = useRef(value);
  useEffect(() => {
    if (followed.current !== value) {
      followed.current = value;
      setTyped(value);
    }
  }, [value]);
  return [typed, setTyped];
}

// Whether a userError is about one of `fields` ("quote.amount" counts for "quote").
function about(error, fields) {
  return Boolean(error.field) && fields.some((f) => error.field === f || error.field.startsWith(f + "."));
}

// The field errors a mutation returned, by input field.
export function errorsFor(userErrors, ...fields) {
  return (userErrors || [])
    .filter((e) => about(e, fields))
    .map((e) => e.message)
    .join(" ");
}

export function otherErrors(userErrors, known) {
  return (userErrors || [])
    .filter((e) => !about(e, known))
    .map((e) => e.message)
    .join(" ");
}

// Every problem of a form's answer at once, one idiom for every form: each field shows its
// own message (Field, FieldError), and this summary, after the fields and before the
// buttons, is read out as an alert: how many fields to fix, then what belongs to none of
// the form's `fields` (a refusal of the whole, an unknown object).
export function FormErrors({ errors, fields }) {
  const list = errors || [];
  const marked = list.filter((e) => about(e, fields)).length;
  const count = marked === 1 ? "1 problem: fix the field marked above." : `${marked} problems: fix the fields marked above.`;
  const text = [marked ? count : "", otherErrors(list, fields)].filter(Boolean).join(" ");
  return html`<${ErrorMessage}>${text}<//>`;
}

// A field's message, for inputs that are not a Field (a group of checkboxes, a picker): the
// input names it with aria-describedby=${id} and aria-invalid.
export function FieldError({ id, error }) {
  if (!error) return null;
  return html`<p class="field-error" id=${id}><span aria-hidden="true">⚠ </span>${error}</p>`;
}

// A labelled input with its error message tied to it (aria-describedby).
export function Field({ label, error, hint, type = "text", value, onInput, required, ...rest }) {
  const id = useId("field");
  const describedBy = [hint ? id + "-hint" : null, error ? id + "-error" : null]
    .filter(Boolean)
    .join(" ");
  const input =
    type === "textarea"
      ? html`<textarea id=${id} value=${value} onInput=${(e) => onInput(e.currentTarget.value)}
          required=${required} aria-invalid=${error ? "true" : undefined}
          aria-describedby=${describedBy || undefined} ...${rest}></textarea>`
      : html`<input id=${id} type=${type} value=${value}
          onInput=${(e) => onInput(e.currentTarget.value)} required=${required}
          aria-invalid=${error ? "true" : undefined} aria-describedby=${describedBy || undefined}
          ...${rest} />`;
  return html`<div class="field">
    <label for=${id}>${label}${required ? html`<span class="required" aria-hidden="true"> (required)</span>` : null}</label>
    ${input}
    ${hint ? html`<p class="hint" id=${id + "-hint"}>${hint}</p>` : null}
    <${FieldError} id=${id + "-error"} error=${error} />
  </div>`;
}

export function Checkbox({ label, checked, onChange, ...rest }) {
  const id = useId("check");
  return html`<div class="check">
    <input type="checkbox" id=${id} checked=${checked}
      onChange=${(e) => onChange(e.currentTarget.checked)} ...${rest} />
    <label for=${id}>${label}</label>
  </div>`;
}

// Asks for a reason, then runs `onConfirm(reason)`; it resolves to the problems (userErrors,
// or a failure as one problem of no field: `problems(...)`) or null.
export function ReasonDialog({ title, intro, action, onConfirm, onClose, cancelLabel = "Back" }) {
  const [reason, setReason] = useState("");
  const [errors, setErrors] = useState([]);
  const [busy, setBusy] = useState(false);
  async function submit(event) {
    event.preventDefault();
    if (!reason.trim()) {
      setErrors([{ field: "reason", message: "Give a reason: it is kept in the history." }]);
      return;
    }
    setBusy(true);
    setErrors([]);
    const found = await onConfirm(reason.trim());
    setBusy(false);
    if (found) setErrors(found);
    else onClose();
  }
  return html`<${Dialog} title=${title} onClose=${onClose}>
    <form onSubmit=${submit} novalidate>
      ${intro ? html`<p>${intro}</p>` : null}
      <${Field} label="Reason" type="textarea" value=${reason} required=${true} rows="3"
        onInput=${setReason} error=${errorsFor(errors, "reason")} />
      <${FormErrors} errors=${errors} fields=${["reason"]} />
      <div class="actions">
        <button type="submit" class="primary" aria-busy=${busy ? "true" : undefined}>${action}</button>
        <button type="button" onClick=${onClose}>${cancelLabel}</button>
      </div>
    </form>
  <//>`;
}

// Whether a datetime-local input's due date has passed: the forms ask before sending one
// (LateQuestion). The server takes it anyway (an order taken late is late) and says so in
// its answer's warnings; this is only a question, for a date mistyped.
export function duePassed(value, now = Date.now()) {
  return Boolean(value) && Date.parse(inputInstant(value)) <= now;
}

// "This order is already late. Create it anyway?": `action` sends, the other button goes
// back to the due date.
export function LateQuestion({ question, action, onYes, onNo }) {
  return html`<div class="message notice late-question" role="alert">
    <p><strong>This order is already late.</strong> ${question}</p>
    <div class="actions">
      <button type="button" class="primary" onClick=${onYes}>${action}</button>
      <button type="button" onClick=${onNo}>Change the due date</button>
    </div>
  </div>`;
}

// What the server's answer warns of, in its words ("This order is already late: ...").
export function warningsText(payload) {
  return (payload.warnings || []).map((w) => w.message).join(" ");
}
