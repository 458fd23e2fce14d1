// The account page, as written for the hosted service: `rupt.evaluate.access` on every protected page view (account
// sharing), `on_logout` when the owner logged this device out; the devices and the report go through this site's
// backend (getUserDevices, addToList).
const status = document.getElementById("status");
const rupt = new Rupt({
  clientId: document.body.dataset.clientId,
  on_logout: async () => {
    await fetch("/api/logout", { method: "POST" });
    location.assign("/");
  },
});

async function post(path, body = {}) {
  const res = await fetch(path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return res.json().catch(() => ({ message: `The site answered ${res.status}` }));
}

async function showDevices() {
  const { devices = [] } = await post("/api/devices");
  const list = document.getElementById("devices");
  list.replaceChildren(
    ...devices.map((d) => {
      const item = document.createElement("li");
      item.textContent = `${d.browser ?? "a browser"} (${d.type}, ${d.status})`;
      item.dataset.device = d.id;
      return item;
    }),
  );
}

rupt.evaluate
  .access({ user: document.body.dataset.user })
  .catch(() => undefined)
  .then(showDevices);

document.getElementById("report").addEventListener("click", async () => {
  const answer = await post("/api/report", { user: "acct_7" });
  status.textContent = answer.ok ? "Reported" : answer.message;
});

document.getElementById("logout").addEventListener("click", async () => {
  await fetch("/api/logout", { method: "POST" });
  location.assign("/");
});
