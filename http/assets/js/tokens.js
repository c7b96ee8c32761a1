// Tokens kept in this browser (localStorage, nowhere else) by the pages that send one — the board for a
// team's or the jury's view, the admin console for the admin token — and the dialog that asks for one.
//
// The dialog is the page's #token-dialog when it has one (the board's markup), else one made here with the
// same ids: a title, a help text, the server's refusal when there was one, a password field, Cancel and
// "Use this token".

// storedToken returns the token kept under key, "" when there is none (or storage is off).
export function storedToken(key) {
  try {
    return localStorage.getItem(key) || "";
  } catch {
    return "";
  }
}

// keepToken keeps a token under key in this browser.
export function keepToken(key, token) {
  try {
    localStorage.setItem(key, token);
  } catch {
    // Storage off (a private window with it disabled): the token lasts as long as the page.
  }
}

// forgetToken removes the token kept under key.
export function forgetToken(key) {
  try {
    localStorage.removeItem(key);
  } catch {
    // nothing kept
  }
}

// askToken opens the token dialog and resolves with the token typed (trimmed), or "" when the dialog is
// cancelled (the button, Escape). error, when not "", says why the last token was refused.
// While the dialog is open, another call gets the same answer rather than a second dialog.
let asking = null;

export function askToken({ title, help, error = "" }) {
  if (asking) return asking;
  const dialog = tokenDialog();
  const $ = (id) => document.getElementById(id);
  $("token-title").textContent = title;
  $("token-help").textContent = help;
  $("token-error").textContent = error;
  $("token-error").hidden = error === "";
  $("token").value = "";
  asking = new Promise((resolve) => {
    let token = "";
    // The form's method is "dialog": submitting closes the dialog, after this.
    $("token-form").onsubmit = () => {
      token = $("token").value.trim();
    };
    $("token-cancel").onclick = () => dialog.close();
    dialog.onclose = () => {
      asking = null;
      resolve(token);
    };
    if (dialog.open) dialog.close();
    dialog.showModal();
    $("token").focus();
  });
  return asking;
}

// tokenDialog returns the page's token dialog, made once if the page has none.
function tokenDialog() {
  let dialog = document.getElementById("token-dialog");
  if (dialog) return dialog;
  const el = (tag, props = {}, ...children) => {
    const e = document.createElement(tag);
    Object.assign(e, props);
    e.append(...children);
    return e;
  };
  const input = el("input", { id: "token", name: "token", type: "password", autocomplete: "off", spellcheck: false, required: true });
  dialog = el("dialog", { id: "token-dialog" },
    el("form", { id: "token-form", method: "dialog" },
      el("h2", { id: "token-title" }, "Token"),
      el("p", { id: "token-help" }),
      el("p", { id: "token-error", className: "error", hidden: true }),
      el("label", {}, "Token ", input),
      el("div", { className: "buttons" },
        el("button", { id: "token-cancel", type: "button" }, "Cancel"),
        el("button", { id: "token-save", type: "submit" }, "Use this token"))));
  dialog.setAttribute("aria-labelledby", "token-title");
  dialog.querySelector("#token-error").setAttribute("role", "alert");
  document.body.append(dialog);
  return dialog;
}
