// Admin: webhooks. Create one (its secret shown once), see each with its backlog and
// recent deliveries, turn it off and on, rotate its secret, delete it, redeliver a delivery.
import { gql } from "../../lib/graphql.js";
import { html, useState } from "../../lib/html.js";
import { request, useQuery, useSubmit } from "../../lib/data.js";
import { Checkbox, Field, FieldError, FormErrors, errorsFor } from "../../lib/forms.js";
import { ErrorMessage, Loading, messageOf } from "../../lib/messages.js";
import { Dialog, Time, useId } from "../../lib/ui.js";
import { DepartmentChecks } from "./parts.js";

export const ADMIN_WEBHOOKS = gql`
  query AdminWebhooks {
    webhooks {
      id url description eventKinds enabled disabledReason failingSince createdAt
      departments { code name }
      backlog { pending lagSeconds }
    }
    webhookEventKinds { kind label }
    departments { code name hasQueue }
  }
`;

export const WEBHOOK_DELIVERIES = gql`
  query WebhookDeliveries($webhookId: ID!) {
    webhookDeliveries(webhookId: $webhookId, first: 20) {
      edges {
        node {
          id status eventKind messageId occurredAt attempts responseStatus error durationMs
          lastAttemptAt nextAttemptAt deliveredAt
        }
      }
    }
  }
`;

export const CREATE_WEBHOOK = gql`
  mutation CreateWebhook($input: CreateWebhookInput!) {
    createWebhook(input: $input) {
      secret
      webhook { id url }
      userErrors { code field message }
    }
  }
`;

export const UPDATE_WEBHOOK = gql`
  mutation UpdateWebhook($input: UpdateWebhookInput!) {
    updateWebhook(input: $input) {
      webhook { id enabled disabledReason }
      userErrors { code field message }
    }
  }
`;

export const ROTATE_WEBHOOK_SECRET = gql`
  mutation RotateWebhookSecret($input: RotateWebhookSecretInput!) {
    rotateWebhookSecret(input: $input) {
      secret
      userErrors { code message }
    }
  }
`;

export const DELETE_WEBHOOK = gql`
  mutation DeleteWebhook($input: DeleteWebhookInput!) {
    deleteWebhook(input: $input) {
      deletedWebhookId
      userErrors { code message }
    }
  }
`;

export const REDELIVER_WEBHOOK_DELIVERY = gql`
  mutation RedeliverWebhookDelivery($input: RedeliverWebhookDeliveryInput!) {
    redeliverWebhookDelivery(input: $input) {
      delivery { id status attempts nextAttemptAt }
      userErrors { code message }
    }
  }
`;

const STATUS = { PENDING: "Waiting", DELIVERED: "Delivered", DEAD: "Failed for good" };

// Runs a mutation whose payload is `field`; resolves to its payload, or throws its errors'
// words.
export async function act(mutation, field, input) {
  const payload = (await request(mutation, { input }))[field];
  if (payload.userErrors.length) throw new Error(payload.userErrors.map((e) => e.message).join(" "));
  return payload;
}

function Secret({ intro, secret, onDone }) {
  return html`<div class="secret" role="status">
    <p>${intro} Its signing secret is shown only this once:</p>
    <p><code class="secret-value">${secret}</code></p>
    <p>The receiver checks each request's <code>webhook-signature</code> with it (Standard Webhooks).</p>
    <button type="button" class="small" onClick=${onDone}>Done, hide the secret</button>
  </div>`;
}

function CreateWebhook({ kinds, departments, onCreated }) {
  const [url, setUrl] = useState("");
  const [description, setDescription] = useState("");
  const [chosen, setChosen] = useState([]);
  const [codes, setCodes] = useState([]);
  const [created, setCreated] = useState(null);
  const { errors, failure, submit: send } = useSubmit();
  const kindsId = useId("kinds-error");
  const kindsError = errorsFor(errors, "eventKinds");

  function submit(event) {
    event.preventDefault();
    const input = {
      url: url.trim(),
      description: description.trim() || null,
      eventKinds: chosen,
      departmentCodes: codes.length ? codes : null,
    };
    return send(CREATE_WEBHOOK, "createWebhook", { input }, (result) => {
      setCreated(result);
      setUrl("");
      setDescription("");
      setChosen([]);
      setCodes([]);
      onCreated();
    });
  }

  return html`<section class="panel" aria-labelledby="new-webhook">
    <h2 id="new-webhook">New webhook</h2>
    <p>Each event of the kinds you choose is sent to the address, in the order it happened, and
      tried again for a day if the receiver fails.</p>
    ${created
      ? html`<${Secret} intro=${`The webhook to ${created.webhook.url} was created.`}
          secret=${created.secret} onDone=${() => setCreated(null)} />`
      : null}
    <form class="stack" onSubmit=${submit} novalidate>
      <div class="row">
        <${Field} label="Receiver address (URL)" value=${url} onInput=${setUrl} required=${true}
          type="url" hint="The https address your system receives the events at" error=${errorsFor(errors, "url")} />
        <${Field} label="Description (optional)" value=${description} onInput=${setDescription}
          hint="What receives it, e.g. Accounting system" error=${errorsFor(errors, "description")} />
      </div>
      <fieldset aria-describedby=${kindsError ? kindsId : undefined}>
        <legend>Events to send</legend>
        <div class="checks">
          ${kinds.map((k) => html`<${Checkbox} key=${k.kind} label=${k.label} checked=${chosen.includes(k.kind)}
            onChange=${(on) => setChosen(on ? [...chosen, k.kind] : chosen.filter((c) => c !== k.kind))} />`)}
        </div>
        <${FieldError} id=${kindsId} error=${kindsError} />
      </fieldset>
      <${DepartmentChecks} legend="Only these departments’ tasks (none chosen: every department)"
        departments=${departments} chosen=${codes} onChange=${setCodes} error=${errorsFor(errors, "departmentCodes")} />
      <${FormErrors} errors=${errors} fields=${["url", "description", "eventKinds", "departmentCodes"]} />
      <${ErrorMessage} error=${failure} />
      <div class="actions"><button type="submit" class="primary">Create webhook</button></div>
    </form>
  </section>`;
}

function lagWords(backlog) {
  if (!backlog.pending) return "Nothing waiting";
  const seconds = Math.round(backlog.lagSeconds);
  return `${backlog.pending} waiting, the oldest for ${seconds} s`;
}

function Deliveries({ webhook, labels }) {
  const list = useQuery(WEBHOOK_DELIVERIES, { webhookId: webhook.id });
  const [error, setError] = useState("");
  const [said, setSaid] = useState("");

  async function redeliver(delivery) {
    setError("");
    setSaid("");
    try {
      await act(REDELIVER_WEBHOOK_DELIVERY, "redeliverWebhookDelivery", { deliveryId: delivery.id });
      setSaid(`${delivery.messageId} will be sent again.`);
      list.refetch();
    } catch (failure) {
      setError(messageOf(failure));
    }
  }

  if (!list.data) return list.error ? html`<${ErrorMessage} error=${list.error} />` : html`<${Loading} />`;
  const rows = list.data.webhookDeliveries.edges.map((e) => e.node);
  if (!rows.length) return html`<p class="hint">No deliveries yet.</p>`;
  return html`
    ${said ? html`<p class="message" role="status">${said}</p>` : null}
    <${ErrorMessage}>${error}<//>
    <div class="table-wrap"><table>
      <caption class="visually-hidden">Recent deliveries to ${webhook.url}</caption>
      <thead><tr><th scope="col">Event</th><th scope="col">Happened</th><th scope="col">State</th>
        <th scope="col">Attempts</th><th scope="col">Last answer</th><th scope="col">Next try</th>
        <th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
      <tbody>${rows.map((d) => html`<tr key=${d.id}>
        <th scope="row">${labels[d.eventKind] || d.eventKind} <code>${d.messageId}</code></th>
        <td>${d.occurredAt ? html`<${Time} iso=${d.occurredAt} />` : "–"}</td>
        <td>${STATUS[d.status] || d.status}</td>
        <td>${d.attempts}</td>
        <td>${d.error || (d.responseStatus ? `${d.responseStatus} in ${d.durationMs} ms` : "–")}</td>
        <td>${d.nextAttemptAt ? html`<${Time} iso=${d.nextAttemptAt} />` : "–"}</td>
        <td><button type="button" class="small" aria-label=${`Redeliver ${d.messageId}`}
          onClick=${() => redeliver(d)}>Redeliver</button></td>
      </tr>`)}</tbody>
    </table></div>`;
}

function WebhookPanel({ webhook, kinds, onChanged }) {
  const [open, setOpen] = useState(false);
  const [error, setError] = useState("");
  const [secret, setSecret] = useState(null);
  const [deleting, setDeleting] = useState(false);
  const labels = Object.fromEntries(kinds.map((k) => [k.kind, k.label]));

  async function run(mutation, field, input, after) {
    setError("");
    try {
      after(await act(mutation, field, { webhookId: webhook.id, ...input }));
      onChanged();
    } catch (failure) {
      setError(messageOf(failure));
    }
  }

  const name = webhook.description || webhook.url;
  return html`<section class="panel" aria-label=${"Webhook " + name}>
    <h3>${name}</h3>
    ${webhook.description ? html`<p><code>${webhook.url}</code></p>` : null}
    <p>${webhook.enabled
      ? html`<strong>Sending.</strong> ${lagWords(webhook.backlog)}.${webhook.failingSince
          ? html` Every attempt has failed since <${Time} iso=${webhook.failingSince} />.`
          : null}`
      : html`<strong>Stopped:</strong> ${webhook.disabledReason}`}</p>
    <p>Sends: ${webhook.eventKinds.map((k) => labels[k] || k).join("; ")}.</p>
    <p>${webhook.departments ? "Departments: " + webhook.departments.map((d) => d.name).join(", ") : "Every department."}</p>
    ${secret ? html`<${Secret} intro="The secret was replaced." secret=${secret} onDone=${() => setSecret(null)} />` : null}
    <${ErrorMessage}>${error}<//>
    <div class="actions">
      <button type="button" class="small" aria-expanded=${open ? "true" : "false"}
        onClick=${() => setOpen(!open)}>${open ? "Hide deliveries" : "Show deliveries"}</button>
      <button type="button" class="small"
        onClick=${() => run(UPDATE_WEBHOOK, "updateWebhook", { enabled: !webhook.enabled }, () => {})}>
        ${webhook.enabled ? "Turn off" : "Turn on"}</button>
      <button type="button" class="small"
        onClick=${() => run(ROTATE_WEBHOOK_SECRET, "rotateWebhookSecret", {}, (p) => setSecret(p.secret))}>
        Replace secret</button>
      <button type="button" class="small danger" onClick=${() => setDeleting(true)}>Delete</button>
    </div>
    ${open ? html`<${Deliveries} webhook=${webhook} labels=${labels} />` : null}
    ${deleting
      ? html`<${Dialog} title=${"Delete the webhook to " + webhook.url + "?"} onClose=${() => setDeleting(false)}>
          <p>It stops at once, and its deliveries are forgotten.</p>
          <${ErrorMessage}>${error}<//>
          <div class="actions">
            <button type="button" class="danger"
              onClick=${() => run(DELETE_WEBHOOK, "deleteWebhook", {}, () => setDeleting(false))}>Delete webhook</button>
            <button type="button" onClick=${() => setDeleting(false)}>Keep it</button>
          </div>
        <//>`
      : null}
  </section>`;
}

export function Webhooks() {
  const list = useQuery(ADMIN_WEBHOOKS);
  if (!list.data) {
    return list.error ? html`<${ErrorMessage} error=${list.error} />` : html`<${Loading} />`;
  }
  const { webhooks, webhookEventKinds: kinds, departments } = list.data;
  return html`
    <${CreateWebhook} kinds=${kinds} departments=${departments.filter((d) => d.hasQueue)}
      onCreated=${list.refetch} />
    <h2>Webhooks</h2>
    ${webhooks.length
      ? webhooks.map((w) => html`<${WebhookPanel} key=${w.id} webhook=${w} kinds=${kinds} onChanged=${list.refetch} />`)
      : html`<p class="hint">None yet.</p>`}`;
}
