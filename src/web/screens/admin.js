// Admin (admins): people (add, departments, deactivate / reactivate, set password),
// departments, tokens (create wall display and API tokens, list and revoke any token,
// the session of this browser marked), webhooks, payment inboxes, email (failures and
// resending), and stale work
// (started tasks untouched for long, with Release at hand). Release / Complete / Reopen of a task are otherwise
// on the work order's page (screens/workorder.js), where the task is.
import { html } from "../lib/html.js";
import { Link } from "../lib/router.js";
import { useTitle } from "../lib/ui.js";
import { Departments } from "./admin/departments.js";
import { Inboxes } from "./admin/inboxes.js";
import { AdminMail } from "./admin/mail.js";
import { People } from "./admin/people.js";
import { Stale } from "./admin/stale.js";
import { Tokens } from "./admin/tokens.js";
import { Webhooks } from "./admin/webhooks.js";

const SECTIONS = [
  ["people", "People"],
  ["departments", "Departments"],
  ["tokens", "Tokens"],
  ["webhooks", "Webhooks"],
  ["inboxes", "Payment inboxes"],
  ["mail", "Email"],
  ["stale", "Stale work"],
];

export function Admin({ section, me }) {
  const current = SECTIONS.find(([key]) => key === section);
  useTitle(current ? `Admin: ${current[1]}` : "Admin");
  return html`<h1>Admin</h1>
    <nav aria-label="Admin sections" class="tabs">
      <ul>${SECTIONS.map(([key, label]) => html`<li key=${key}>
        <${Link} href=${"/admin/" + key} aria-current=${key === section ? "page" : undefined}>${label}<//></li>`)}
      </ul>
    </nav>
    ${section === "people" ? html`<${People} me=${me} />` : null}
    ${section === "departments" ? html`<${Departments} />` : null}
    ${section === "tokens" ? html`<${Tokens} />` : null}
    ${section === "webhooks" ? html`<${Webhooks} />` : null}
    ${section === "inboxes" ? html`<${Inboxes} />` : null}
    ${section === "mail" ? html`<${AdminMail} />` : null}
    ${section === "stale" ? html`<${Stale} />` : null}
    ${current ? null : html`<p>No such section. <${Link} href="/admin/people">People<//></p>`}`;
}
