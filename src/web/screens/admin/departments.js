// Admin: departments (list, create, route: which departments each one follows).
import { gql } from "../../lib/graphql.js";
import { html, useState } from "../../lib/html.js";
import { request, useQuery } from "../../lib/data.js";
import { Checkbox, Field, FieldError, FormErrors, errorsFor } from "../../lib/forms.js";
import { ErrorMessage, Loading } from "../../lib/messages.js";
import { useId } from "../../lib/ui.js";

export const ADMIN_DEPARTMENTS = gql`
  query AdminDepartments {
    departments { id code name kind gatesDelivery canFollow follows { code name } }
    departmentKinds { kind available canGateDelivery gatesDeliveryByDefault }
  }
`;

export const CREATE_DEPARTMENT = gql`
  mutation CreateDepartment($input: CreateDepartmentInput!) {
    createDepartment(input: $input) {
      department { id code name }
      userErrors { code field message }
    }
  }
`;

export const SET_FOLLOWS = gql`
  mutation SetDepartmentFollows($input: SetDepartmentFollowsInput!) {
    setDepartmentFollows(input: $input) {
      department { id name follows { code name } }
      userErrors { code field message }
    }
  }
`;

// One production department's route: the production departments whose tasks its task
// waits for on an order. Loops are the server's to refuse (it names them).
function Route({ department, production, onSaved }) {
  const [chosen, setChosen] = useState(department.follows.map((d) => d.code));
  const [message, setMessage] = useState(null);
  const [saving, setSaving] = useState(false);
  const errorId = useId("route-error");
  const others = production.filter((d) => d.code !== department.code);

  function toggle(code, on) {
    setChosen((now) => (on ? [...now, code] : now.filter((c) => c !== code)));
  }

  async function save(event) {
    event.preventDefault();
    setSaving(true);
    setMessage(null);
    try {
      const { setDepartmentFollows: done } = await request(SET_FOLLOWS, {
        input: { departmentCode: department.code, followsCodes: chosen },
      });
      if (done.userErrors.length) {
        setMessage({ errors: done.userErrors });
      } else {
        setChosen(done.department.follows.map((d) => d.code));
        const names = done.department.follows.map((d) => d.name);
        setMessage({ ok: names.length ? `${department.name} now waits for ${names.join(", ")}.` : `${department.name} waits for no one.` });
        onSaved();
      }
    } catch (error) {
      setMessage({ failure: error });
    }
    setSaving(false);
  }

  const errors = message && message.errors;
  const followsError = errorsFor(errors, "followsCodes");
  return html`<form class="route" onSubmit=${save} novalidate>
    <fieldset aria-describedby=${followsError ? errorId : undefined}>
      <legend>${department.name} waits for</legend>
      ${others.map((d) => html`<${Checkbox} key=${d.code} label=${d.name}
        checked=${chosen.includes(d.code)} onChange=${(on) => toggle(d.code, on)} />`)}
      <${FieldError} id=${errorId} error=${followsError} />
    </fieldset>
    <${FormErrors} errors=${errors} fields=${["followsCodes"]} />
    ${message && message.failure ? html`<${ErrorMessage} error=${message.failure} />` : null}
    ${message && message.ok ? html`<p class="message success" role="status"><span aria-hidden="true">✓ </span>${message.ok}</p>` : null}
    <div class="actions"><button type="submit" disabled=${saving}
      aria-label=${"Save route of " + department.name}>Save route</button></div>
  </form>`;
}

function Routing({ departments, onSaved }) {
  const production = departments.filter((d) => d.canFollow);
  return html`<section class="panel" aria-labelledby="routing">
    <h2 id="routing">Routing</h2>
    <p class="hint">On a work order, a department's task enters its queue once the tasks of the
      departments it waits for are done. A department the order does not include is passed
      through: if Finishing waits for Print and Print for Design, an order without Print lets
      Finishing wait for Design. Delivery waits for every department marked “Delivery waits
      for this department”.</p>
    <div class="routes">
      ${production.map((d) => html`<${Route} key=${d.code}
        department=${d} production=${production} onSaved=${onSaved} />`)}
    </div>
  </section>`;
}

function label(kind) {
  return kind.charAt(0) + kind.slice(1).toLowerCase();
}

export function Departments() {
  const list = useQuery(ADMIN_DEPARTMENTS);
  const [code, setCode] = useState("");
  const [name, setName] = useState("");
  const [picked, setPicked] = useState(null);
  const [gates, setGates] = useState(null);
  const [errors, setErrors] = useState([]);
  const [failure, setFailure] = useState(null);
  const [done, setDone] = useState("");
  const kindId = useId("kind");
  // The kinds the server offers now, and what goes with each (departmentKinds).
  const choices = list.data ? list.data.departmentKinds.filter((c) => c.available) : [];
  const choice = choices.find((c) => c.kind === picked) || choices[0] || null;
  const gatesDelivery = choice && choice.canGateDelivery ? gates ?? choice.gatesDeliveryByDefault : false;

  function pick(kind) {
    setPicked(kind);
    setGates(null);
  }

  async function submit(event) {
    event.preventDefault();
    if (!choice) return;
    setErrors([]);
    setFailure(null);
    setDone("");
    try {
      const { createDepartment } = await request(CREATE_DEPARTMENT, {
        input: { code: code.trim(), name: name.trim(), kind: choice.kind, gatesDelivery },
      });
      if (createDepartment.userErrors.length) {
        setErrors(createDepartment.userErrors);
        return;
      }
      setDone(`${createDepartment.department.name} created.`);
      setCode("");
      setName("");
      list.refetch();
    } catch (error) {
      setFailure(error);
    }
  }

  return html`
    <h2>Departments</h2>
    <${ErrorMessage} error=${list.error} />
    ${list.data
      ? html`<div class="table-wrap"><table>
          <thead><tr><th scope="col">Name</th><th scope="col">Code</th><th scope="col">Kind</th><th scope="col">Gates delivery</th><th scope="col">Waits for</th></tr></thead>
          <tbody>${list.data.departments.map((d) => html`<tr key=${d.id}>
            <th scope="row">${d.name}</th><td><code>${d.code}</code></td>
            <td>${label(d.kind)}</td><td>${d.gatesDelivery ? "Yes" : "No"}</td>
            <td>${d.follows.length ? d.follows.map((f) => f.name).join(", ") : "—"}</td>
          </tr>`)}</tbody>
        </table></div>
        <${Routing} departments=${list.data.departments} onSaved=${() => list.refetch()} />`
      : html`<${Loading} />`}
    <section class="panel" aria-labelledby="new-dept">
      <h2 id="new-dept">Add a department</h2>
      <form class="stack" onSubmit=${submit} novalidate>
        <div class="row">
          <${Field} label="Name" value=${name} onInput=${setName} required=${true} error=${errorsFor(errors, "name")} />
          <${Field} label="Code" value=${code} onInput=${setCode} required=${true}
            hint="Lowercase letters, digits and hyphens, e.g. large-format" error=${errorsFor(errors, "code")} />
        </div>
        <div class="field">
          <label for=${kindId}>Kind</label>
          <select id=${kindId} value=${choice ? choice.kind : ""} onChange=${(e) => pick(e.currentTarget.value)}>
            ${choices.map((c) => html`<option value=${c.kind}>${label(c.kind)}</option>`)}
          </select>
        </div>
        ${choice && choice.canGateDelivery
          ? html`<${Checkbox} label="Delivery waits for this department" checked=${gatesDelivery} onChange=${setGates} />`
          : null}
        <${FormErrors} errors=${errors} fields=${["name", "code"]} />
        <${ErrorMessage} error=${failure} />
        ${done ? html`<p class="message success" role="status"><span aria-hidden="true">✓ </span>${done}</p>` : null}
        <div class="actions"><button type="submit" class="primary">Create department</button></div>
      </form>
    </section>`;
}

