// "Choose a channel" (docs/challenge-app.md): where the code goes, each destination masked by the server.
import type { Channel as ChannelName } from "@tessera/sdk/contract";
import { useState } from "preact/hooks";
import { t } from "../i18n/index.js";
import { busy, lastChannel, openChannels, send, view } from "../state.js";
import { isolate, Notice, Title } from "../ui.js";

export function Channel() {
  const m = t.value;
  const options = openChannels.value;
  const [chosen, choose] = useState<ChannelName | undefined>(
    options.find((o) => o.channel === lastChannel.value)?.channel ?? options[0]?.channel,
  );
  const onSubmit = (e: Event) => {
    e.preventDefault();
    if (chosen) send(chosen);
  };
  if (options.length === 1) {
    // Nothing to choose (e.g. the last channel still to confirm when every channel is required): say where it goes.
    const only = options[0]!;
    return (
      <section aria-labelledby="screen-title">
        <Title>{m.channel.titleOne}</Title>
        <p id="send-to">{m.channel.sendTo(isolate(only.destination))}</p>
        <Notice />
        <div class="actions">
          <button type="button" class="primary" disabled={busy.value} aria-describedby="send-to" onClick={() => send(only.channel)}>
            {m.channel.send}
          </button>
        </div>
      </section>
    );
  }
  return (
    <section aria-labelledby="screen-title">
      <Title>{m.channel.title}</Title>
      {view.value?.required_channels === "all" && <p>{m.channel.all}</p>}
      <form onSubmit={onSubmit}>
        <fieldset class="choices" aria-labelledby="screen-title">
          {options.map((o) => (
            <label class="choice" key={o.channel}>
              <input type="radio" name="channel" value={o.channel} checked={chosen === o.channel} onChange={() => choose(o.channel)} />
              <span>{m.channel[o.channel](isolate(o.destination))}</span>
            </label>
          ))}
        </fieldset>
        <Notice />
        <div class="actions">
          <button type="submit" class="primary" disabled={busy.value || !chosen}>
            {m.channel.send}
          </button>
        </div>
      </form>
    </section>
  );
}
