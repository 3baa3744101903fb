// The job's fields (JobInput), as the new-order form and the order page's details editor
// both ask for them: one field each, the server's problem with it under it (job.quantity,
// or details.quantity for a key of the same name in the details).
import { html } from "../../lib/html.js";
import { Field, errorsFor } from "../../lib/forms.js";

const FIELDS = [
  { key: "product", label: "Product", hint: "For example: Flyers A5" },
  { key: "quantity", label: "Quantity", inputmode: "numeric", class: "short" },
  { key: "size", label: "Size", hint: "For example: A5 or 85 x 55 mm" },
  { key: "stock", label: "Stock", hint: "The paper or material, e.g. 350 g silk" },
  { key: "colours", label: "Colours", hint: "For example: 4/4" },
  { key: "finishing", label: "Finishing", hint: "For example: folded, laminated" },
  { key: "notes", label: "Notes", type: "textarea", rows: "3" },
];

// The form's values of a job read from WorkOrder.job (null: a new one).
export function jobValues(job) {
  return Object.fromEntries(FIELDS.map(({ key }) => [key, job && job[key] != null ? String(job[key]) : ""]));
}

// What JobInput takes: the fields as typed; the server trims them, reads the quantity's
// digits and leaves a blank one out.
export function jobInput(values) {
  return Object.fromEntries(FIELDS.map(({ key }) => [key, values[key]]));
}

// Every problem a job can have shows at a field: its own, or, for the job as a whole ("Say
// what the job is", too big), the first. A form counts "job" and "details" as shown.
export function JobFields({ values, onChange, errors }) {
  const at = (key) => errorsFor(errors, "job." + key, "details." + key);
  const whole = (errors || []).filter((e) => e.field === "job" || e.field === "details").map((e) => e.message);
  const field = ({ key, label, ...rest }) => html`<${Field} key=${key} label=${label} value=${values[key]}
    onInput=${(value) => onChange({ ...values, [key]: value })}
    error=${[...(key === FIELDS[0].key ? whole : []), at(key)].filter(Boolean).join(" ")} ...${rest} />`;
  return html`<div class="row">${FIELDS.slice(0, 2).map(field)}</div>
    <div class="row">${FIELDS.slice(2, 4).map(field)}</div>
    <div class="row">${FIELDS.slice(4, 6).map(field)}</div>
    ${field(FIELDS[6])}`;
}
