// The login page, as written for the hosted service: `new Rupt({ clientId })`, `rupt.evaluate.login(…)`, the
// evaluation id sent with the password to this site's backend; back from the hosted challenge at the success URL,
// the backend finishes the login.
const form = document.getElementById("login");
const status = document.getElementById("status");
const rupt = new Rupt({ clientId: document.body.dataset.clientId, success_url: `${location.origin}/return` });
const show = (text) => {
  status.textContent = text;
};

async function post(path, body) {
  const res = await fetch(path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return res.json().catch(() => ({ message: `The site answered ${res.status}` }));
}

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  show("Signing in…");
  let evaluation_id;
  try {
    ({ evaluation_id } = await rupt.evaluate.login({ user: form.user.value }));
  } catch (error) {
    return show(`Sign-in is unavailable right now (${error.code}). Try again in a moment.`);
  }
  const answer = await post("/api/login", { user: form.user.value, password: form.password.value, evaluation_id });
  if (answer.challenge) return location.assign(answer.challenge);
  if (answer.ok) return location.assign("/account");
  show(answer.message);
});

const returned = new URLSearchParams(location.search).get("evaluation");
if (returned) {
  history.replaceState(null, "", "/");
  show("Finishing the sign-in…");
  post("/api/login/return", { evaluation_id: returned }).then((answer) => {
    if (answer.ok) location.assign("/account");
    else show(answer.message);
  });
}
