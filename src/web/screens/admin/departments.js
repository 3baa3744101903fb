// Admin: departments (list, create).
import { gql } from "../../lib/graphql.js";
import { html, useState } from "../../lib/html.js";
import {
  Checkbox,
  ErrorMessage,
  Field,
  Loading,
  errorsFor,
  request,
  useId,
  useQuery,
} from "../../lib/ui.js";

export const ADMIN_DEPARTMENTS = gql`
  query AdminDepartments {
    departments { id code name kind gatesDelivery }
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

const KINDS = ["PRODUCTION", "DELIVERY", "SALES", "ACCOUNTS"];

export function Departments() {
  const list = useQuery(ADMIN_DEPARTMENTS);
  const [code, setCode] = useState("");
  const [name, setName] = useState("");
  const [kind, setKind] = useState("PRODUCTION");
  const [gates, setGates] = useState(true);
  const [errors, setErrors] = useState([]);
  const [failure, setFailure] = useState(null);
  const [done, setDone] = useState("");
  const kindId = useId("kind");
  // Exactly one DELIVERY department exists: offer it only while the list shows none.
  const hasDelivery = !list.data || list.data.departments.some((d) => d.kind === "DELIVERY");
  const kinds = KINDS.filter((k) => k !== "DELIVERY" || !hasDelivery);

  async function submit(event) {
    event.preventDefault();
    setErrors([]);
    setFailure(null);
    setDone("");
    try {
      const { createDepartment } = await request(CREATE_DEPARTMENT, {
        input: { code: code.trim(), name: name.trim(), kind, gatesDelivery: kind === "PRODUCTION" ? gates : false },
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
          <thead><tr><th scope="col">Name</th><th scope="col">Code</th><th scope="col">Kind</th><th scope="col">Gates delivery</th></tr></thead>
          <tbody>${list.data.departments.map((d) => html`<tr key=${d.id}>
            <th scope="row">${d.name}</th><td><code>${d.code}</code></td>
            <td>${d.kind.charAt(0) + d.kind.slice(1).toLowerCase()}</td><td>${d.gatesDelivery ? "Yes" : "No"}</td>
          </tr>`)}</tbody>
        </table></div>`
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
          <select id=${kindId} value=${kind} onChange=${(e) => setKind(e.currentTarget.value)}>
            ${kinds.map((k) => html`<option value=${k}>${k.charAt(0) + k.slice(1).toLowerCase()}</option>`)}
          </select>
        </div>
        ${kind === "PRODUCTION"
          ? html`<${Checkbox} label="Delivery waits for this department" checked=${gates} onChange=${setGates} />`
          : null}
        <${ErrorMessage}>${errors.filter((e) => !["name", "code"].includes(e.field)).map((e) => e.message).join(" ")}<//>
        <${ErrorMessage} error=${failure} />
        ${done ? html`<p class="message success" role="status"><span aria-hidden="true">✓ </span>${done}</p>` : null}
        <div class="actions"><button type="submit" class="primary">Create department</button></div>
      </form>
    </section>`;
}

