// Webhook endpoints (docs/console.md): register one (its signing secret shown once), see its deliveries, retry a failed
// one, send a test event, delete it.
import { WEBHOOK_EVENTS, type WebhookDelivery, type WebhookEndpoint } from "@tessera/sdk/contract";
import { useState } from "preact/hooks";
import { del, get, post } from "../api.js";
import { t } from "../i18n/index.js";
import { can } from "../state.js";
import { act, Code, Field, Show, Table, Title, useData, when } from "../ui.js";

function Deliveries({ endpoint }: { endpoint: WebhookEndpoint }) {
  const m = t.value.webhooks;
  const list = useData(() => get<{ data: WebhookDelivery[] }>(`/v3/webhook-endpoints/${endpoint.id}/deliveries?limit=20`), [endpoint.id]);
  return (
    <Show of={list}>
      {({ data }) => (
        <>
          {can("owner") && (
            <button
              type="button"
              class="secondary"
              onClick={() =>
                void act(() => post(`/v3/webhook-endpoints/${endpoint.id}/test`, {}), m.testSent, t.value.failed.testEvent).then(
                  list.reload,
                )
              }
            >
              {m.test}
            </button>
          )}
          {data.length ? (
            <Table
              headers={[t.value.audit.time, m.events, t.value.challenges.status, m.attempts, m.lastResult, can("owner") && m.retry]}
              caption={m.deliveries}
            >
              {data.map((d) => (
                <tr key={d.id}>
                  <td>{when(d.createdAt)}</td>
                  <td dir="ltr">{d.event}</td>
                  <td>{d.status}</td>
                  <td>{d.attempts}</td>
                  <td dir="ltr">{d.last_status_code ?? d.last_error ?? ""}</td>
                  {can("owner") && (
                    <td>
                      {d.status === "failed" && (
                        <button
                          type="button"
                          class="secondary"
                          onClick={() =>
                            void act(
                              () => post(`/v3/webhook-endpoints/${endpoint.id}/deliveries/${d.id}/retry`),
                              t.value.saved,
                              t.value.failed.retryDelivery,
                            ).then(list.reload)
                          }
                        >
                          {m.retry}
                        </button>
                      )}
                    </td>
                  )}
                </tr>
              ))}
            </Table>
          ) : (
            <p>{t.value.none}</p>
          )}
        </>
      )}
    </Show>
  );
}

export function Webhooks() {
  const m = t.value.webhooks;
  const list = useData(() => get<{ data: WebhookEndpoint[] }>("/v3/webhook-endpoints"), []);
  const [url, setUrl] = useState("");
  const [events, setEvents] = useState<string[]>([]);
  const [secret, setSecret] = useState("");
  return (
    <section aria-labelledby="screen-title">
      <Title>{m.title}</Title>
      {secret && (
        <p class="secret" role="status">
          <Code>{m.secret(secret)}</Code>
        </p>
      )}
      <Show of={list}>
        {({ data }) =>
          data.length ? (
            data.map((e) => (
              <article key={e.id} class="panel">
                <h2 dir="ltr">{e.url}</h2>
                <p>
                  <Code>{e.events.join(", ")}</Code>
                </p>
                {!e.enabled && <p class="error">{m.disabled(e.disabled_reason ?? "")}</p>}
                <Deliveries endpoint={e} />
                {can("owner") && (
                  <button
                    type="button"
                    class="danger"
                    onClick={() => {
                      if (confirm(t.value.confirm))
                        void act(() => del(`/v3/webhook-endpoints/${e.id}`), t.value.saved, t.value.failed.deleteEndpoint).then(
                          list.reload,
                        );
                    }}
                  >
                    {m.delete}
                  </button>
                )}
              </article>
            ))
          ) : (
            <p>{t.value.none}</p>
          )
        }
      </Show>
      {can("owner") && (
        <form
          class="panel"
          onSubmit={(e) => {
            e.preventDefault();
            void act(
              async () => {
                const created = await post<WebhookEndpoint>("/v3/webhook-endpoints", { url, events });
                setSecret(created.secret ?? "");
                setUrl("");
                list.reload();
              },
              undefined,
              t.value.failed.createEndpoint,
            );
          }}
        >
          <h2>{m.create}</h2>
          <Field label={m.url} name="url">
            {(id, state) => (
              <input id={id} type="url" dir="ltr" required value={url} onInput={(e) => setUrl(e.currentTarget.value)} {...state} />
            )}
          </Field>
          <fieldset>
            <legend>{m.events}</legend>
            {WEBHOOK_EVENTS.map((ev) => (
              <div key={ev} class="field check">
                <input
                  id={`ev-${ev}`}
                  type="checkbox"
                  checked={events.includes(ev)}
                  onChange={(e) => setEvents(e.currentTarget.checked ? [...events, ev] : events.filter((x) => x !== ev))}
                />
                <label for={`ev-${ev}`} dir="ltr">
                  {ev}
                </label>
              </div>
            ))}
          </fieldset>
          <button type="submit" class="primary">
            {m.create}
          </button>
        </form>
      )}
    </section>
  );
}
