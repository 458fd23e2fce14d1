// The login page's own code (README "Login integration", steps 1 and 3): evaluate the login with the SDK, send the
// evaluation id with the password to this site's backend, follow its answer; back from the hosted challenge, have the
// backend finish the login. No inline script: the page's CSP forbids it.
const form = document.getElementById("login");
const status = document.getElementById("status");
const tessera = new Tessera({ clientId: document.body.dataset.clientId });
const show = (text) => {
  status.textContent = text;
};

async function post(path, body) {
  const res = await fetch(path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return res.json().catch(() => ({ message: `The site answered ${res.status}` }));
}

// #region browser-login
form.addEventListener("submit", async (event) => {
  event.preventDefault();
  show("Signing in…");
  let evaluation_id;
  try {
    ({ evaluation_id } = await tessera.evaluate.login({ user: form.user.value }));
  } catch (error) {
    // Tessera unreachable, or a bad argument: this site fails closed (yours may let the password alone decide).
    return show(`Sign-in is unavailable right now (${error.code}). Try again in a moment.`);
  }
  const answer = await post("/api/login", { user: form.user.value, password: form.password.value, evaluation_id });
  if (answer.challenge) return location.assign(answer.challenge); // the hosted challenge page; it comes back here
  if (answer.ok) return location.assign("/account");
  show(answer.message);
});

// Back from the hosted challenge: the page the login started from (or the policy's success URL) gets ?evaluation=<id>.
const returned = new URLSearchParams(location.search).get("evaluation");
if (returned) {
  history.replaceState(null, "", location.pathname);
  show("Finishing the sign-in…");
  post("/api/login/challenge-return", { evaluation_id: returned }).then((answer) => {
    if (answer.ok) location.assign("/account");
    else show(answer.message);
  });
}
// #endregion browser-login
