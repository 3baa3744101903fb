// A customer's contact and address: the card the order page shows, and the dialog that
// creates one (from the new-order form) or corrects one (from the order page).
import { gql } from "../lib/graphql.js";
import { html, useState } from "../lib/html.js";
import { useOnce, useSubmit } from "../lib/data.js";
import { Field, FormErrors, errorsFor } from "../lib/forms.js";
import { ErrorMessage, RetryMessage } from "../lib/messages.js";
import { Dialog, addressLines } from "../lib/ui.js";

export const CREATE_CUSTOMER = gql`
  mutation CreateCustomer($input: CreateCustomerInput!) {
    createCustomer(input: $input) {
      customer { id name contactName email phone notes address { lines postcode city country given } }
      userErrors { code field message }
    }
  }
`;

export const UPDATE_CUSTOMER = gql`
  mutation UpdateCustomer($input: UpdateCustomerInput!) {
    updateCustomer(input: $input) {
      customer { id name contactName email phone notes address { lines postcode city country given } }
      userErrors { code field message }
    }
  }
`;

const FIELDS = ["name", "contactName", "email", "phone", "address.lines", "address.postcode",
  "address.city", "address.country", "notes"];

export function CustomerCard({ customer }) {
  const lines = addressLines(customer.address);
  return html`<div class="customer-card">
    <p><strong>${customer.name}</strong>${customer.contactName ? html` · ${customer.contactName}` : null}</p>
    ${customer.phone ? html`<p>Phone: <a href=${"tel:" + customer.phone}>${customer.phone}</a></p>` : null}
    ${customer.email ? html`<p>Email: <a href=${"mailto:" + customer.email}>${customer.email}</a></p>` : null}
    ${lines.length
      ? html`<address>${lines.map((line, i) => html`${i ? html`<br />` : null}${line}`)}</address>`
      : html`<p class="empty">No address yet.</p>`}
    ${customer.notes ? html`<p class="hint">${customer.notes}</p>` : null}
  </div>`;
}

// Creates a customer (`customer` null, the name typed so far in `name`) or corrects one.
export function CustomerDialog({ customer, name: typed = "", onClose, onSaved }) {
  const start = customer || { name: typed, address: { lines: [] } };
  const [values, setValues] = useState({
    name: start.name || "",
    contactName: start.contactName || "",
    email: start.email || "",
    phone: start.phone || "",
    lines: (start.address.lines || []).join("\n"),
    postcode: start.address.postcode || "",
    city: start.address.city || "",
    country: start.address.country || "",
    notes: start.notes || "",
  });
  // A new customer is made once per submission, whatever retries it takes (useOnce).
  const once = useOnce();
  const edit = useSubmit();
  const { errors, failure, busy } = customer ? edit : once;
  const held = !customer && once.held;
  const set = (key) => (value) => setValues((now) => ({ ...now, [key]: value }));

  async function submit(event) {
    event.preventDefault();
    const input = {
      name: values.name,
      contactName: values.contactName,
      email: values.email,
      phone: values.phone,
      address: {
        lines: values.lines.split("\n").filter((line) => line.trim()),
        postcode: values.postcode,
        city: values.city,
        country: values.country,
      },
      notes: values.notes,
    };
    const saved = (payload) => { onSaved(payload.customer); onClose(); };
    if (customer) {
      await edit.submit(UPDATE_CUSTOMER, "updateCustomer", { input: { customerId: customer.id, ...input } }, saved);
    } else {
      await once.send(CREATE_CUSTOMER, "createCustomer", input, saved);
    }
  }

  return html`<${Dialog} title=${customer ? "Edit customer " + customer.name : "New customer"} onClose=${onClose}>
    <form onSubmit=${submit} novalidate>
      <fieldset class="as-sent" disabled=${held}>
        <${Field} label="Name" value=${values.name} onInput=${set("name")} required=${true}
          error=${errorsFor(errors, "name")} />
        <div class="row">
          <${Field} label="Contact" value=${values.contactName} onInput=${set("contactName")}
            hint="Whom to ask for." error=${errorsFor(errors, "contactName")} />
          <${Field} label="Phone" type="tel" value=${values.phone} onInput=${set("phone")}
            error=${errorsFor(errors, "phone")} />
        </div>
        <${Field} label="Email" type="email" value=${values.email} onInput=${set("email")}
          error=${errorsFor(errors, "email")} />
        <${Field} label="Address" type="textarea" rows="2" value=${values.lines} onInput=${set("lines")}
          hint="Street and house; one line each, up to 4." error=${errorsFor(errors, "address.lines")} />
        <div class="row">
          <${Field} label="Postcode" value=${values.postcode} onInput=${set("postcode")} class="short"
            error=${errorsFor(errors, "address.postcode")} />
          <${Field} label="City" value=${values.city} onInput=${set("city")}
            error=${errorsFor(errors, "address.city")} />
        </div>
        <${Field} label="Country" value=${values.country} onInput=${set("country")}
          error=${errorsFor(errors, "address.country")} />
        <${Field} label="Notes" type="textarea" rows="2" value=${values.notes} onInput=${set("notes")}
          error=${errorsFor(errors, "notes")} />
      </fieldset>
      <${FormErrors} errors=${errors} fields=${FIELDS} />
      ${customer
        ? html`<${ErrorMessage} error=${failure} />`
        : html`<${RetryMessage} failure=${failure} button="Create customer" what="this customer" verb="created" />`}
      <div class="actions">
        <button type="submit" class="primary" aria-busy=${busy ? "true" : undefined}>${customer ? "Save customer" : "Create customer"}</button>
        <button type="button" onClick=${onClose}>Back</button>
      </div>
    </form>
  <//>`;
}
