// The demo customer site's browser code (docs/sdk.md "Login integration"): evaluate with the SDK, post the
// evaluation id with the form to the site's own backend, follow its answer. No inline code: the page CSP forbids it.
const page = document.body.dataset.page;
const status = document.getElementById("status");
const tessera = new Tessera({ clientId: document.body.dataset.clientId });

function show(text, kind) {
  status.textContent = text;
  status.className = kind ?? "";
}

async function post(path, body) {
  const res = await fetch(path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

async function submit(form, action) {
  const data = Object.fromEntries(new FormData(form));
  show("Checking this device…");
  let evaluation;
  try {
    evaluation = await tessera.evaluate[action]({ user: data.user, email: data.email || undefined });
  } catch (error) {
    // The SDK rejects (never throws into the page); a real site would decide whether to fail open or closed.
    show(`Tessera unavailable (${error.name}): ${error.message}`, "error");
    return;
  }
  const answer = await post(`/demo/api/${action}`, { user: data.user, email: data.email, evaluation_id: evaluation.evaluation_id });
  if (answer.body.challenge) {
    show("Extra verification needed — taking you to the challenge (the code is in the dev outbox)…");
    location.assign(answer.body.challenge);
  } else {
    show(answer.body.message, answer.status === 200 ? "ok" : "error");
  }
}

// Back from the hosted challenge: the URL carries ?evaluation=<id>; the backend consumes it and decides.
async function returnFromChallenge(evaluationId) {
  history.replaceState(null, "", location.pathname);
  const answer = await post("/demo/api/challenge-return", { evaluation_id: evaluationId });
  show(answer.body.message, answer.status === 200 ? "ok" : "error");
  if (page === "paid" && answer.status === 200) document.getElementById("content").hidden = false;
}

async function openPaid(user) {
  show("Checking access…");
  try {
    // `access` navigates to the challenge by itself when one is needed.
    const evaluation = await tessera.evaluate.access({ user });
    if (evaluation.redirect) return;
    const answer = await post("/demo/api/access", { user, evaluation_id: evaluation.evaluation_id });
    show(answer.body.message, answer.status === 200 ? "ok" : "error");
    document.getElementById("content").hidden = answer.status !== 200;
  } catch (error) {
    show(`Tessera unavailable (${error.name}): ${error.message}`, "error");
  }
}

const returned = new URLSearchParams(location.search).get("evaluation");
if (returned) returnFromChallenge(returned);

if (page === "home") {
  for (const action of ["login", "signup"]) {
    document.getElementById(action).addEventListener("submit", (event) => {
      event.preventDefault();
      submit(event.target, action);
    });
  }
  const testMode = document.getElementById("test-mode");
  testMode.addEventListener("submit", async (event) => {
    event.preventDefault();
    const answer = await post("/demo/api/test-mode", Object.fromEntries(new FormData(testMode)));
    show(answer.body.message ?? answer.body.error?.message, answer.status === 200 ? "ok" : "error");
  });
} else if (page === "paid") {
  const who = document.getElementById("who");
  who.addEventListener("submit", (event) => {
    event.preventDefault();
    openPaid(new FormData(who).get("user"));
  });
  if (!returned) openPaid(new FormData(who).get("user"));
}
