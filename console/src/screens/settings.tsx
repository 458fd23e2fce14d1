// Settings (docs/console.md): client id and allowed origins, the challenge page's branding with a live preview, the
// default device limit, the admin email, identity verification, the countries codes may be texted to; and the secret
// keys (owners only).
import type { EnvironmentSettings } from "@tessera/sdk/contract";
import { IDENTITY_VERIFICATION_MODES } from "@tessera/sdk/contract";
import { useEffect, useRef, useState } from "preact/hooks";
import { get, patch, post } from "../api.js";
import { t } from "../i18n/index.js";
import { can } from "../state.js";
import { act, Code, Field, Show, Table, Title, useData, when } from "../ui.js";

interface Key {
  id: string;
  prefix: string;
  label?: string;
  createdAt: string;
  revoked_at?: string;
  last_used_at?: string;
}

const HEX = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i;

/** The challenge page's card with the typed branding: colour set from script (CSS custom properties, CSP-safe). */
function Preview({ name, logo, color }: { name: string; logo: string; color: string }) {
  const m = t.value.settings;
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    ref.current?.style.setProperty("--brand", HEX.test(color) ? color : "#2f54c7");
  }, [color]);
  const safeLogo = /^(https:\/\/|data:image\/)/i.test(logo) ? logo : "";
  return (
    <figure class="preview" aria-label={m.preview}>
      <div ref={ref} class="preview-page">
        <div class="preview-brand">
          {safeLogo && <img src={safeLogo} alt="" />}
          <span>{name}</span>
        </div>
        <div class="preview-card">
          <p class="preview-title">{m.previewTitle}</p>
          <p>{m.previewBody}</p>
          <span class="preview-button">{m.previewButton}</span>
        </div>
      </div>
      <figcaption>{m.preview}</figcaption>
    </figure>
  );
}

function Keys() {
  const m = t.value.settings;
  const keys = useData(() => get<{ data: Key[] }>("/v3/keys"), []);
  const [secret, setSecret] = useState("");
  const [label, setLabel] = useState("");
  return (
    <section class="panel" aria-labelledby="keys-title">
      <h2 id="keys-title">{m.keys}</h2>
      {secret && (
        <p class="secret" role="status">
          <Code>{m.keySecret(secret)}</Code>
        </p>
      )}
      <Show of={keys}>
        {({ data }) => (
          <Table headers={[m.prefix, m.label, m.created, m.lastUsed, m.revoked]}>
            {data.map((k) => (
              <tr key={k.id}>
                <td>
                  <Code>{`${k.prefix}…`}</Code>
                </td>
                <td>{k.label ?? ""}</td>
                <td>{when(k.createdAt)}</td>
                <td>{k.last_used_at ? when(k.last_used_at) : m.never}</td>
                <td>
                  {k.revoked_at ? (
                    when(k.revoked_at)
                  ) : (
                    <button
                      type="button"
                      class="secondary"
                      aria-label={`${m.revoke} ${k.prefix}…`}
                      onClick={() =>
                        void act(() => post(`/v3/keys/${k.id}/revoke`), t.value.saved, t.value.failed.revoke).then(keys.reload)
                      }
                    >
                      {m.revoke}
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </Table>
        )}
      </Show>
      <form
        class="toolbar"
        onSubmit={(e) => {
          e.preventDefault();
          void act(
            async () => {
              setSecret((await post<{ secret: string }>("/v3/keys", label.trim() ? { label: label.trim() } : {})).secret);
              setLabel("");
              keys.reload();
            },
            undefined,
            t.value.failed.createKey,
          );
        }}
      >
        <Field label={m.newKeyLabel} name="label">
          {(id, state) => <input id={id} maxLength={100} value={label} onInput={(e) => setLabel(e.currentTarget.value)} {...state} />}
        </Field>
        <button type="submit" class="primary">
          {m.newKey}
        </button>
      </form>
    </section>
  );
}

function Form({ s, reload }: { s: EnvironmentSettings; reload: () => void }) {
  const m = t.value.settings;
  const [origins, setOrigins] = useState(s.allowed_origins.join("\n"));
  const [logo, setLogo] = useState(s.logo_url ?? "");
  const [color, setColor] = useState(s.color ?? "#2f54c7");
  const [limit, setLimit] = useState(s.default_device_limit);
  const [admin, setAdmin] = useState(s.admin_email ?? "");
  const [identity, setIdentity] = useState(s.identity_verification);
  const [sms, setSms] = useState(s.sms_countries?.join(", ") ?? "");
  const owner = can("owner");
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        void act(
          () =>
            patch("/v3/settings", {
              allowed_origins: origins
                .split("\n")
                .map((o) => o.trim())
                .filter(Boolean),
              logo_url: logo || null,
              color: color || null,
              default_device_limit: limit,
              admin_email: admin || null,
              identity_verification: identity,
              // Empty: every country (the setting cleared); the server checks each code and names a wrong one.
              sms_countries: sms.trim() ? sms.split(/[\s,]+/).filter(Boolean) : null,
            }),
          t.value.saved,
          t.value.failed.save,
        ).then(reload);
      }}
    >
      <fieldset disabled={!owner}>
        <dl class="facts">
          <dt>{m.clientId}</dt>
          <dd>
            <Code>{s.client_id}</Code>
          </dd>
        </dl>
        <Field label={m.origins} name="allowed_origins">
          {(id, state) => (
            <textarea id={id} dir="ltr" rows={3} value={origins} onInput={(e) => setOrigins(e.currentTarget.value)} {...state} />
          )}
        </Field>
        <h2>{m.branding}</h2>
        <div class="columns">
          <div>
            <Field label={m.logo} name="logo_url">
              {(id, state) => <input id={id} dir="ltr" value={logo} onInput={(e) => setLogo(e.currentTarget.value)} {...state} />}
            </Field>
            <Field label={m.color}>
              {(id) => (
                <input id={id} type="color" value={HEX.test(color) ? color : "#2f54c7"} onInput={(e) => setColor(e.currentTarget.value)} />
              )}
            </Field>
          </div>
          <Preview name={s.project.name} logo={logo} color={color} />
        </div>
        <div class="grid">
          <Field label={m.deviceLimit}>
            {(id) => (
              <input id={id} type="number" min={1} max={100} value={limit} onInput={(e) => setLimit(Number(e.currentTarget.value) || 1)} />
            )}
          </Field>
          <Field label={m.adminEmail} name="admin_email">
            {(id, state) => (
              <input id={id} type="email" dir="ltr" value={admin} onInput={(e) => setAdmin(e.currentTarget.value)} {...state} />
            )}
          </Field>
          <Field label={m.identity}>
            {(id) => (
              <select id={id} value={identity} onChange={(e) => setIdentity(e.currentTarget.value as typeof identity)}>
                {IDENTITY_VERIFICATION_MODES.map((v) => (
                  <option key={v} value={v}>
                    {m.identityModes[v]}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Field label={m.smsCountries} hint={m.smsCountriesHint}>
            {(id) => <input id={id} dir="ltr" value={sms} placeholder="FR, BE" onInput={(e) => setSms(e.currentTarget.value)} />}
          </Field>
        </div>
        <button type="submit" class="primary">
          {t.value.save}
        </button>
      </fieldset>
    </form>
  );
}

export function Settings() {
  const settings = useData(() => get<EnvironmentSettings>("/v3/settings"), []);
  return (
    <section aria-labelledby="screen-title">
      <Title>{t.value.settings.title}</Title>
      <Show of={settings}>{(s) => <Form s={s} reload={settings.reload} />}</Show>
      {can("owner") && <Keys />}
    </section>
  );
}
