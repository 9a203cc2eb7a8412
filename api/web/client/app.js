// The reference web client: a page on the public API only. Routes live in the
// address's fragment (#/t/<invite code>), so the link a player shares is the
// link everyone comes back through; tokens stay in this browser's storage.

import { ApiError, NetworkError, bodyFields, move, offers, request } from "./api.js";
import { cardElement, sortCards } from "./cards.js";
import { LANGUAGES, cardName, language, problemText, setLanguage, t, valueName } from "./i18n.js";
import { Follower } from "./live.js";
import { canVerify, verifyTable } from "./verify.js";

// -- small DOM helpers ---------------------------------------------------------

function h(tag, props = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === "class") element.className = value;
    else if (name === "text") element.textContent = value;
    else if (name === "on") for (const [event, handler] of Object.entries(value)) element.addEventListener(event, handler);
    else if (name === "dataset") Object.assign(element.dataset, value);
    else if (name in element && !name.includes("-")) element[name] = value;
    else element.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return element;
}

const $ = (selector, root = document) => root.querySelector(selector);

function section(id, title, ...children) {
  return h("section", { id, class: "panel", "aria-labelledby": `${id}-title` }, h("h2", { id: `${id}-title`, text: title }), ...children);
}

// -- what this browser remembers: a seat (or spectator token) per invite code ---

const SEATS_KEY = "copas.seats";

const seats = {
  all() {
    try {
      return JSON.parse(localStorage.getItem(SEATS_KEY)) || {};
    } catch {
      return {};
    }
  },
  get(code) {
    return this.all()[code] || null;
  },
  put(code, entry) {
    const all = this.all();
    all[code] = { ...all[code], ...entry };
    localStorage.setItem(SEATS_KEY, JSON.stringify(all));
  },
  forget(code) {
    const all = this.all();
    delete all[code];
    localStorage.setItem(SEATS_KEY, JSON.stringify(all));
  },
};

function seenCommitments(tableId) {
  try {
    return JSON.parse(localStorage.getItem(`copas.seen.${tableId}`)) || {};
  } catch {
    return {};
  }
}

function rememberCommitment(view) {
  if (!view.deal_commitment || view.status === "waiting" || view.status === "finished") return;
  const seen = seenCommitments(view.table_id);
  const key = `${view.match}.${view.round}`;
  if (seen[key] === view.deal_commitment) return;
  seen[key] = view.deal_commitment;
  localStorage.setItem(`copas.seen.${view.table_id}`, JSON.stringify(seen));
}

// -- notices and the connection -------------------------------------------------

function showError(error) {
  const notice = $("#notice");
  let text;
  if (error instanceof ApiError) text = problemText(error.problem);
  else if (error instanceof NetworkError) text = t("error_network");
  else {
    text = String(error && error.message ? error.message : error);
    console.warn(error);
  }
  notice.replaceChildren(
    h("span", { class: "notice-text", text }),
    h("button", { type: "button", class: "link", "aria-label": t("cancel"), text: "×", on: { click: clearError } }),
  );
  notice.dataset.code = error instanceof ApiError ? error.problem.code || "" : "network";
  notice.hidden = false;
}

function clearError() {
  const notice = $("#notice");
  notice.hidden = true;
  notice.replaceChildren();
  delete notice.dataset.code;
}

function showConnection(state, detail = {}) {
  const pill = $("#connection");
  document.body.dataset.connection = state;
  pill.className = `connection ${state}`;
  const words = {
    connecting: t("connecting"),
    live: t("live"),
    polling: t("live_polling"),
    offline: t("offline", { s: detail.retryIn }),
    retrying: t("retrying_move"),
    gone: t("offline_short"),
    none: "",
  };
  pill.textContent = words[state] ?? "";
}

const inviteLink = (code) => `${location.origin}${location.pathname}#/t/${encodeURIComponent(code)}`;

const seatName = (view, seat) => {
  const entry = view.seats[seat];
  if (!entry) return `#${seat}`;
  if (entry.kind === "empty") return t("empty_seat");
  return entry.name || `#${seat}`;
};

// -- the home page: create a table, the tables this browser has seats at ---------

const FALLBACK_CREATE_FIELDS = {
  name: { type: "string", maxLength: 40 },
  target_score: { type: "integer", enum: [100, 50], default: 100 },
  revoke: { type: "string", enum: ["prevented", "allowed"], default: "prevented" },
  tie: { type: "string", enum: ["share", "play_on"], default: "share" },
};
const TRICKS_PER_ROUND = { 3: 17, 4: 13, 5: 10 }; // 52 cards less 2D (3 players) or 2D and 2C (5)
const MAIN_OPTIONS = ["game", "players", "target_score", "revoke", "tie", "hints"];

function optionControl(name, field) {
  const id = `opt-${name}`;
  const label = h("label", { for: id, text: t(name) });
  let control;
  if (field.enum || field.type === "boolean") {
    const values = field.enum || [true, false];
    control = h("select", { id, name, dataset: { kind: field.type || "string" } });
    if (field.default === undefined) control.append(h("option", { value: "", text: `— ${t("game_value")}` }));
    for (const value of values) {
      const mark = value === field.default ? ` ${t("default_mark")}` : "";
      control.append(h("option", { value: String(value), text: valueName(value) + mark, selected: value === field.default }));
    }
  } else if (field.type === "integer" || field.type === "number") {
    control = h("input", {
      id,
      name,
      type: "number",
      inputmode: "numeric",
      min: field.minimum,
      max: field.maximum,
      step: 1,
      placeholder: field.default !== undefined ? String(field.default) : t("game_value"),
      dataset: { kind: "integer" },
    });
  } else {
    control = h("input", { id, name, type: "text", maxlength: field.maxLength, dataset: { kind: "string" } });
  }
  control.dataset.default = field.default === undefined ? "" : String(field.default);
  return h("div", { class: "field" }, label, control);
}

/** The options the person changed, typed as the schema says; defaults are left to the server. */
function chosenOptions(form) {
  const body = {};
  for (const control of form.querySelectorAll("[data-kind]")) {
    if (control.name === "name") continue;
    const raw = control.value.trim();
    if (raw === "" || raw === control.dataset.default) continue;
    const kind = control.dataset.kind;
    body[control.name] = kind === "integer" || kind === "number" ? Number(raw) : kind === "boolean" ? raw === "true" : raw;
  }
  return body;
}

async function renderHome(main) {
  const fields = (await bodyFields("/v1/tables", "post")) || FALLBACK_CREATE_FIELDS;
  const nameField = fields.name || FALLBACK_CREATE_FIELDS.name;
  const options = Object.entries(fields).filter(([name]) => name !== "name");
  const main_ = options.filter(([name]) => MAIN_OPTIONS.includes(name));
  const more = options.filter(([name]) => !MAIN_OPTIONS.includes(name));
  const form = h(
    "form",
    { id: "create", class: "create", on: { submit: (event) => createTable(event, form) } },
    h(
      "div",
      { class: "field" },
      h("label", { for: "create-name", text: t("your_name") }),
      h("input", { id: "create-name", name: "name", required: true, maxlength: nameField.maxLength || 40, autocomplete: "nickname", value: localStorage.getItem("copas.name") || "" }),
    ),
    h("div", { class: "options" }, main_.map(([name, field]) => optionControl(name, field))),
    more.length ? h("details", { class: "more" }, h("summary", { text: t("more_options") }), h("div", { class: "options" }, more.map(([name, field]) => optionControl(name, field)))) : null,
    h("button", { type: "submit", class: "primary", id: "create-submit", text: t("create") }),
  );
  const mine = Object.entries(seats.all());
  const list = mine.length
    ? h(
        "ul",
        { class: "tables" },
        mine.map(([code, entry]) =>
          h(
            "li",
            {},
            h("a", { href: `#/t/${encodeURIComponent(code)}`, text: `${entry.name || "?"} · ${entry.role === "spectator" ? t("watch") : `#${entry.seat}`} · ${new Date(entry.at || Date.now()).toLocaleString(language())}` }),
            " ",
            h("button", { type: "button", class: "link", text: t("forget"), on: { click: () => { seats.forget(code); route(); } } }),
          ),
        ),
      )
    : h("p", { class: "muted", text: t("no_tables") });
  main.replaceChildren(
    h("div", { class: "home" }, h("h1", { text: "Copas" }), h("p", { class: "tagline", text: t("tagline") }), section("create-panel", t("create_title"), form), section("mine", t("your_tables"), list)),
  );
}

async function createTable(event, form) {
  event.preventDefault();
  const button = $("#create-submit");
  const name = form.elements.name.value.trim();
  if (!name) return;
  button.disabled = true;
  try {
    const { body } = await request("POST", "/tables", { body: { name, ...chosenOptions(form) } });
    localStorage.setItem("copas.name", name);
    seats.put(body.invite_code, { table_id: body.table_id, token: body.token, role: "player", seat: body.seat, name, at: Date.now(), creator: true });
    clearError();
    location.hash = `#/t/${encodeURIComponent(body.invite_code)}`;
  } catch (error) {
    showError(error);
  } finally {
    button.disabled = false;
  }
}

// -- the invitation: look at the table, then join ----------------------------------

async function renderJoin(main, code) {
  main.replaceChildren(h("p", { class: "muted", text: t("loading") }));
  let invitation;
  try {
    ({ body: invitation } = await request("GET", `/invites/${encodeURIComponent(code)}`));
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) {
      main.replaceChildren(h("div", { class: "home" }, h("h1", { text: t("join_title") }), h("p", { text: t("invite_unknown") }), h("a", { href: "#/", text: t("create_title") })));
    } else {
      showError(error);
    }
    return;
  }
  const player = invitation.joins_as === "player";
  const form = h(
    "form",
    { id: "join", on: { submit: (event) => joinTable(event, form, code) } },
    h("p", { id: "joins-as", text: player ? t("join_as_player") : t("join_as_spectator") }),
    h("div", { class: "field" }, h("label", { for: "join-name", text: t("your_name") }), h("input", { id: "join-name", name: "name", required: true, maxlength: 40, autocomplete: "nickname", value: localStorage.getItem("copas.name") || "" })),
    h("button", { type: "submit", class: "primary", id: "join-submit", text: player ? t("join") : t("watch") }),
  );
  main.replaceChildren(
    h(
      "div",
      { class: "home" },
      h("h1", { text: t("join_title") }),
      section("join-panel", t(`status_${invitation.status}`), h("ul", { class: "seat-list" }, invitation.seats.map((seat) => h("li", { text: `#${seat.seat} ${seat.kind === "empty" ? t("empty_seat") : seat.name}${seat.kind === "bot" ? ` (${t("bot")})` : ""}` }))), form),
      section("join-rules", t("options_title"), rulesList(invitation.options)),
    ),
  );
  $("#join-name").focus();
}

async function joinTable(event, form, code) {
  event.preventDefault();
  const name = form.elements.name.value.trim();
  if (!name) return;
  $("#join-submit").disabled = true;
  try {
    const { body } = await request("POST", `/invites/${encodeURIComponent(code)}/join`, { body: { name } });
    localStorage.setItem("copas.name", name);
    seats.put(code, { table_id: body.table_id, token: body.token, role: body.role, seat: body.seat, name, at: Date.now() });
    clearError();
    route();
  } catch (error) {
    showError(error);
    $("#join-submit").disabled = false;
  }
}

function rulesList(options) {
  return h("dl", { class: "rules" }, Object.entries(options).map(([name, value]) => [h("dt", { text: t(name) }), h("dd", { text: valueName(value) })]));
}

// -- the table -------------------------------------------------------------------------

class TablePage {
  constructor(code, entry) {
    this.code = code;
    this.entry = entry;
    this.view = null;
    this.selected = new Set();
    this.selectedFor = null;
    this.hint = null;
    this.busy = false;
    this.hintsOffered = false;
    this.hintsRefused = false;
    this.confirmingResign = false;
    this.accusationNote = null;
    this.dealResults = null;
  }

  async mount(main) {
    this.main = main;
    main.replaceChildren(h("p", { class: "muted", text: t("loading") }));
    const [stream, hints, preferences, bots] = await Promise.all([
      offers("/v1/tables/{table_id}/stream"),
      offers("/v1/tables/{table_id}/hint"),
      bodyFields("/v1/tables/{table_id}/me", "patch"),
      bodyFields("/v1/tables/{table_id}/bots", "post"),
    ]);
    this.hintsOffered = hints;
    this.designs = (preferences && preferences.deck_design && preferences.deck_design.enum) || ["classic", "four-color", "large-index", "minimal"];
    this.botLevels = bots && bots.level && bots.level.enum ? bots.level : null;
    this.moonPath = await offers("/v1/tables/{table_id}/moon", "post");
    this.build();
    this.follower = new Follower({
      tableId: this.entry.table_id,
      token: this.entry.token,
      stream,
      onView: (view) => this.show(view),
      onStatus: (state, detail) => this.connection(state, detail),
    }).start();
  }

  destroy() {
    if (this.follower) this.follower.stop();
  }

  connection(state, detail) {
    if (state === "gone") {
      showConnection("gone");
      this.main.replaceChildren(
        h("div", { class: "home" }, h("p", { id: "seat-lost", text: t("seat_lost") }), h("p", { class: "muted", text: problemText(detail.problem) }), h("button", { type: "button", class: "primary", text: t("join_again"), on: { click: () => { seats.forget(this.code); route(); } } })),
      );
      return;
    }
    showConnection(state, detail);
  }

  build() {
    const link = inviteLink(this.code);
    this.deck = h("div", { class: "table-page deck-classic" });
    const copy = h("button", { type: "button", id: "copy-invite", text: t("copy"), on: { click: () => this.copyInvite(link) } });
    const designSelect = h(
      "select",
      { id: "deck-design", on: { change: (event) => this.preferences({ deck_design: event.target.value }) } },
      this.designs.map((design) => h("option", { value: design, text: t(`design_${design}`) })),
    );
    const nameForm = h(
      "form",
      { id: "name-form", class: "inline", on: { submit: (event) => { event.preventDefault(); const name = $("#my-name").value.trim(); if (name) this.preferences({ name }); } } },
      h("label", { for: "my-name", text: t("name") }),
      h("input", { id: "my-name", maxlength: 40, required: true, autocomplete: "nickname", value: this.entry.name || "" }),
      h("button", { type: "submit", text: t("save") }),
    );
    this.deck.append(
      h(
        "div",
        { class: "play-area" },
        h("div", { id: "status", class: "status", "aria-live": "polite" }),
        h("div", { id: "turn", class: "turn-banner", "aria-live": "polite" }),
        h("div", { id: "result" }),
        h("div", { id: "felt", class: "felt", role: "group", "aria-label": t("trick") }),
        h(
          "section",
          { id: "hand-section", class: "hand-section", "aria-labelledby": "hand-title" },
          h("h2", { id: "hand-title", class: "sr-only", text: t("your_hand") }),
          h("div", { id: "hand", class: "hand", role: "toolbar", "aria-label": t("your_hand"), on: { keydown: (event) => this.handKeys(event) } }),
          h("div", { id: "hand-actions", class: "hand-actions" }),
          h("div", { id: "hint-box", class: "hint-box", "aria-live": "polite" }),
        ),
      ),
      h(
        "div",
        { class: "side" },
        section("actions", t("actions"), h("div", { id: "actions-body" })),
        section("invite", t("invite_title"), h("p", { class: "muted", text: t("invite_help") }), h("div", { class: "inline" }, h("input", { id: "invite-link", readonly: true, value: link, "aria-label": t("invite_title"), on: { focus: (event) => event.target.select() } }), copy), h("span", { id: "copy-note", class: "muted", "aria-live": "polite" })),
        section("scores", t("scores_title"), h("div", { id: "scores-body" })),
        section("deals", t("deals_title"), h("p", { class: "muted", text: t("commitment_help") }), h("div", { id: "deals-body" }), h("button", { type: "button", id: "check-deals", text: t("check_deals"), on: { click: () => this.checkDeals() } }), h("ul", { id: "deal-results", class: "deal-results", "aria-live": "polite" })),
        section("me", t("me_title"), nameForm, h("div", { class: "inline" }, h("label", { for: "deck-design", text: t("deck_design") }), designSelect), h("div", { id: "deck-sample", class: "deck-sample", "aria-hidden": "true" })),
        section("rules", t("options_title"), h("div", { id: "rules-body" })),
      ),
    );
    this.main.replaceChildren(this.deck);
  }

  // Every view (stream, poll, or a move's answer) lands here.
  show(view) {
    if (this.view && view.version < this.view.version) return;
    if (this.follower) this.follower.saw(view);
    const text = JSON.stringify(view);
    if (this.view && view.version === this.view.version && text === this.viewText) return; // the same view again
    this.viewText = text;
    const roundKey = `${view.match}.${view.round}.${view.status}`;
    if (roundKey !== this.selectedFor) {
      this.selected.clear();
      this.selectedFor = roundKey;
    }
    if (this.hint && this.hint.version !== view.version) this.hint = null;
    this.view = view;
    rememberCommitment(view);
    if (view.you && view.you.name && view.you.name !== this.entry.name) {
      this.entry.name = view.you.name;
      seats.put(this.code, { name: view.you.name });
    }
    document.body.dataset.version = String(view.version);
    document.body.dataset.status = view.status;
    document.body.dataset.role = view.you.role;
    this.render();
  }

  get me() {
    return this.view.you.seat ?? null;
  }

  get isPlayer() {
    return this.view.you.role === "player";
  }

  get myTurn() {
    const view = this.view;
    return this.isPlayer && view.awaiting.includes(this.me) && view.status !== "finished";
  }

  render() {
    const view = this.view;
    const design = view.you.deck_design || "classic";
    this.deck.className = `table-page deck-${design}`;
    document.body.dataset.awaitingMe = String(this.myTurn && !this.busy);
    this.renderStatus();
    this.renderTurn();
    this.renderFelt();
    this.renderHand();
    this.renderResult();
    this.renderActions();
    this.renderScores();
    this.renderDeals();
    const select = $("#deck-design");
    if (document.activeElement !== select) select.value = design;
    $("#deck-sample").replaceChildren(...["AS", "KH", "QD", "JC"].map((card) => cardElement(card)));
    $("#rules-body").replaceChildren(rulesList(view.options));
    const nameInput = $("#my-name");
    if (document.activeElement !== nameInput && view.you.name) nameInput.value = view.you.name;
  }

  renderStatus() {
    const view = this.view;
    const parts = [t(`status_${view.status}`)];
    if (view.match && view.match > 1) parts.unshift(t("match_n", { n: view.match }));
    if (view.round) parts.push(t("round_n", { n: view.round }));
    if (view.status === "passing" || view.status === "playing") {
      if (view.pass_direction) parts.push(t("pass_to", { d: t(`dir_${view.pass_direction}`) }));
      if (view.hearts_broken) parts.push(t("hearts_broken"));
    }
    if (view.spectators && view.spectators.length) parts.push(t("spectators", { names: view.spectators.map((s) => s.name).join(", ") }));
    $("#status").textContent = parts.join(" · ");
  }

  renderTurn() {
    const view = this.view;
    const banner = $("#turn");
    banner.replaceChildren();
    banner.className = "turn-banner";
    if (!this.isPlayer) {
      banner.append(h("p", { id: "spectating", text: t("you_watch") }));
    }
    if (view.moon_choice) {
      const choice = view.moon_choice;
      if (this.isPlayer && choice.seat === this.me) {
        banner.classList.add("mine");
        banner.append(
          h("p", { text: t("moon_title") }),
          h("div", { class: "inline" }, choice.choices.map((option) => h("button", { type: "button", class: "primary", dataset: { moon: option }, text: t(`moon_${option}`), disabled: this.busy, on: { click: () => this.act("moon", { choice: option }) } }))),
        );
      } else {
        banner.append(h("p", { text: t("moon_waiting", { name: seatName(view, choice.seat) }) }));
      }
      return;
    }
    if (view.status === "finished" || view.status === "waiting") return;
    if (this.myTurn) {
      banner.classList.add("mine");
      const passing = view.status === "passing";
      banner.append(h("p", { id: "your-turn", text: passing ? t("your_pass", { d: t(`dir_${view.pass_direction}`) }) : t("your_turn") }));
    } else if (view.awaiting.length) {
      banner.append(h("p", { text: t("waiting_for", { names: view.awaiting.map((seat) => seatName(view, seat)).join(", ") }) }));
    }
  }

  seatAngle(seat) {
    const count = this.view.seats.length;
    const relative = (seat - (this.me ?? 0) + count) % count;
    return ((90 + (relative * 360) / count) * Math.PI) / 180; // you at the bottom, clockwise
  }

  renderFelt() {
    const view = this.view;
    const felt = $("#felt");
    felt.replaceChildren();
    felt.dataset.seats = String(view.seats.length);
    const teamOf = {};
    (view.teams || []).forEach((team, index) => team.seats.forEach((seat) => (teamOf[seat] = index)));
    for (const seat of view.seats) {
      const angle = this.seatAngle(seat.seat);
      const awaited = view.awaiting.includes(seat.seat) && view.status !== "finished";
      const plate = h(
        "div",
        {
          class: `seat${awaited ? " awaited" : ""}${view.turn === seat.seat ? " turn" : ""}${seat.seat === this.me && this.isPlayer ? " mine" : ""}${seat.kind === "empty" ? " empty" : ""}`,
          dataset: { seat: seat.seat, team: teamOf[seat.seat] ?? "" },
          role: "group",
          "aria-label": `#${seat.seat} ${seatName(view, seat.seat)}`,
        },
        h("strong", { class: "seat-name", text: seatName(view, seat.seat) + (seat.seat === this.me && this.isPlayer ? ` (${t("you")})` : "") }),
        seat.kind === "bot" ? h("span", { class: "badge", text: `${t("bot")}${seat.bot_level ? " " + t(`level_${seat.bot_level}`) : ""}` }) : null,
        seat.kind !== "empty"
          ? h(
              "span",
              { class: "seat-stats" },
              h("span", { class: "score", text: `${t("score")} ${seat.score}` }),
              view.status !== "waiting"
                ? h("span", { class: "counts", text: `${seat.round_points} ${t("pts")} · ${seat.tricks_taken} ${t("tricks")} · ${seat.hand_size} ${t("cards_left")}`, title: `${seat.round_points} ${t("round_points")}` })
                : null,
            )
          : null,
        view.status === "passing" && seat.has_passed ? h("span", { class: "badge ok", text: t("passed") }) : null,
      );
      plate.style.left = `${Math.min(84, Math.max(16, 50 + 38 * Math.cos(angle)))}%`; // a plate is at most 30% wide: it stays on the felt
      plate.style.top = `${50 + 38 * Math.sin(angle)}%`;
      felt.append(plate);
    }
    const trick = view.trick;
    if (trick && trick.cards.length) {
      const count = view.seats.length;
      const cards = h("div", { class: "trick", id: "trick", role: "list", "aria-label": `${t("trick")} ${trick.number}` });
      for (const played of trick.cards) {
        const angle = this.seatAngle(played.seat);
        const card = cardElement(played.card, { label: `${seatName(view, played.seat)}: ${cardName(played.card)}` });
        card.setAttribute("role", "listitem");
        card.style.left = `${50 + (count > 4 ? 18 : 14) * Math.cos(angle)}%`;
        card.style.top = `${50 + 15 * Math.sin(angle)}%`;
        card.dataset.seat = played.seat;
        cards.append(card);
      }
      felt.append(cards);
    }
    const last = view.last_trick;
    if (last && last.cards.length) {
      felt.append(
        h(
          "div",
          { class: "last-trick", id: "last-trick" },
          h("span", { class: "caption", text: `${t("last_trick")}: ${t("won_by", { name: seatName(view, last.winner) })}` }),
          h("div", { class: "mini" }, last.cards.map((played) => cardElement(played.card, { label: `${seatName(view, played.seat)}: ${cardName(played.card)}${played.seat === last.winner ? " ★" : ""}` }))),
        ),
      );
    }
    if (view.status === "playing" && trick) {
      felt.append(h("span", { class: "trick-number", text: t("trick_n", { n: trick.number, of: TRICKS_PER_ROUND[view.seats.length] ?? 13 }) }));
    }
  }

  renderHand() {
    const view = this.view;
    const section_ = $("#hand-section");
    const hand = $("#hand");
    const actions = $("#hand-actions");
    const focused = hand.contains(document.activeElement) ? document.activeElement.dataset.card : null;
    hand.replaceChildren();
    actions.replaceChildren();
    if (!this.isPlayer || !view.you.hand.length) {
      section_.hidden = true;
      $("#hint-box").replaceChildren();
      return;
    }
    section_.hidden = false;
    const you = view.you;
    const passing = view.status === "passing" && you.legal_moves.length > 0;
    const playing = view.status === "playing" && view.turn === this.me && !view.moon_choice;
    const legal = new Set(you.legal_moves);
    const playable = new Set(you.playable || you.legal_moves);
    const hinted = new Set(this.hint && Array.isArray(this.hint.cards) ? this.hint.cards : []);
    const received = new Set(view.status === "playing" && you.pass && you.pass.received && view.trick && view.trick.number === 1 ? you.pass.received : []);
    for (const card of this.selected) if (!legal.has(card)) this.selected.delete(card);
    const cards = sortCards(you.hand);
    let tabStop = null;
    for (const card of cards) {
      const canAct = !this.busy && ((passing && legal.has(card)) || (playing && playable.has(card)));
      const isRevoke = playing && playable.has(card) && !legal.has(card);
      let label = cardName(card);
      if (isRevoke) label += ` (${t("revoke_card")})`;
      const element = cardElement(card, { as: "button", label });
      element.classList.toggle("legal", (passing || playing) && legal.has(card));
      element.classList.toggle("revoke", isRevoke);
      element.classList.toggle("unplayable", !canAct);
      element.classList.toggle("hinted", hinted.has(card));
      element.classList.toggle("received", received.has(card));
      element.setAttribute("aria-disabled", String(!canAct));
      if (passing) {
        element.setAttribute("aria-pressed", String(this.selected.has(card)));
        element.classList.toggle("selected", this.selected.has(card));
      }
      element.tabIndex = -1;
      element.addEventListener("click", () => this.cardClicked(card, { passing, playing, canAct }));
      hand.append(element);
      if (tabStop === null && canAct) tabStop = element;
    }
    const first = focused ? hand.querySelector(`[data-card="${focused}"]`) : null;
    (first || tabStop || hand.firstElementChild || { tabIndex: 0 }).tabIndex = 0;
    if (first) first.focus();

    if (passing) {
      actions.append(h("button", { type: "button", class: "primary", id: "pass-submit", on: { click: () => this.act("passes", { cards: sortCards(this.selected) }) } }));
      this.showSelection();
    } else if (view.status === "passing" && you.pass && you.pass.given) {
      actions.append(h("p", { class: "muted", id: "passed-note", text: t("passed_given", { cards: you.pass.given.map(cardName).join(", ") }) }));
    }
    if (received.size) actions.append(h("p", { class: "muted", text: t("received", { cards: [...received].map(cardName).join(", ") }) }));
    if (this.hintsOffered && !this.hintsRefused && view.options.hints !== false && this.myTurn) {
      actions.append(h("button", { type: "button", id: "hint", text: t("hint"), disabled: this.busy, on: { click: () => this.askHint() } }));
    }
    const box = $("#hint-box");
    box.replaceChildren();
    if (this.hint) {
      box.append(
        h("strong", { text: `${t("hint_title")}: ${Array.isArray(this.hint.cards) ? this.hint.cards.map(cardName).join(", ") : this.hint.choice ? t(`moon_${this.hint.choice}`) : ""}` }),
        h("ul", {}, (this.hint.reasons || []).map((reason) => h("li", { dataset: { tip: reason.tip }, text: reason.text }))),
      );
    }
  }

  /** The cards picked for the pass, marked in place (the hand keeps its focus). */
  showSelection() {
    for (const element of $("#hand").querySelectorAll(".card")) {
      const picked = this.selected.has(element.dataset.card);
      element.classList.toggle("selected", picked);
      element.setAttribute("aria-pressed", String(picked));
    }
    const button = $("#pass-submit");
    if (!button) return;
    const missing = 3 - this.selected.size;
    button.disabled = missing !== 0 || this.busy;
    button.textContent = missing === 0 ? t("pass_cards") : t("pass_pick", { n: missing });
  }

  handKeys(event) {
    const cards = [...$("#hand").querySelectorAll(".card")];
    const index = cards.indexOf(document.activeElement);
    if (index < 0) return;
    const moves = { ArrowRight: index + 1, ArrowDown: index + 1, ArrowLeft: index - 1, ArrowUp: index - 1, Home: 0, End: cards.length - 1 };
    if (!(event.key in moves)) return;
    event.preventDefault();
    const next = cards[Math.max(0, Math.min(cards.length - 1, moves[event.key]))];
    cards.forEach((card) => (card.tabIndex = -1));
    next.tabIndex = 0;
    next.focus();
  }

  cardClicked(card, { passing, playing, canAct }) {
    if (!canAct || this.busy) return;
    if (passing) {
      if (this.selected.has(card)) this.selected.delete(card);
      else if (this.selected.size < 3) this.selected.add(card);
      this.showSelection();
      return;
    }
    if (playing) this.act("plays", { card });
  }

  renderResult() {
    const view = this.view;
    const box = $("#result");
    box.replaceChildren();
    if (!view.result) return;
    const result = view.result;
    const names = result.winners.map((seat) => seatName(view, seat)).join(", ") || "—";
    box.append(
      section(
        "result-panel",
        t("result_title"),
        h("p", { id: "winners", class: "winners", text: t("winners", { names }) }),
        h("p", { class: "muted", text: t(`reason_${result.reason}`) }),
        h(
          "table",
          { class: "standings" },
          h("thead", {}, h("tr", {}, h("th", { text: t("rank") }), h("th", { text: t("name") }), h("th", { text: t("score") }))),
          h("tbody", {}, result.standings.map((row) => h("tr", { class: result.winners.includes(row.seat) ? "winner" : "" }, h("td", { text: row.rank }), h("td", { text: seatName(view, row.seat) }), h("td", { text: row.score })))),
        ),
        this.isPlayer ? h("button", { type: "button", class: "primary", id: "rematch", text: t("rematch"), disabled: this.busy, on: { click: () => this.act("rematch") } }) : null,
      ),
    );
  }

  renderActions() {
    const view = this.view;
    const body = $("#actions-body");
    body.replaceChildren();
    const running = view.status === "passing" || view.status === "playing";
    if (this.isPlayer && this.me === 0 && view.status === "waiting" && view.seats.some((seat) => seat.kind === "empty")) {
      const level = this.botLevels
        ? h("select", { id: "bot-level", "aria-label": t("bot_level") }, this.botLevels.enum.map((value) => h("option", { value, text: t(`level_${value}`), selected: value === this.botLevels.default })))
        : null;
      body.append(
        h(
          "div",
          { class: "inline", id: "bots" },
          level ? h("label", { for: "bot-level", text: t("bot_level") }) : null,
          level,
          h("button", { type: "button", class: "primary", id: "seat-bots", text: t("seat_bots"), disabled: this.busy, on: { click: () => this.act("bots", level ? { level: level.value } : {}) } }),
        ),
      );
    }
    if (this.isPlayer && view.status === "playing" && view.options.revoke === "allowed") {
      const others = view.seats.filter((seat) => seat.seat !== this.me);
      const select = h("select", { id: "accuse-seat", "aria-label": t("accuse_seat") }, others.map((seat) => h("option", { value: seat.seat, text: seatName(view, seat.seat) })));
      body.append(
        h(
          "div",
          { class: "inline", id: "accusation" },
          h("label", { for: "accuse-seat", text: t("accuse_seat") }),
          select,
          h("button", { type: "button", id: "accuse", text: t("accuse"), disabled: this.busy, on: { click: () => this.act("accusations", { seat: Number(select.value) }) } }),
        ),
      );
    }
    if (this.accusationNote) body.append(h("p", { id: "accusation-note", class: "note", text: this.accusationNote }));
    if (this.isPlayer && running) {
      if (this.confirmingResign) {
        body.append(
          h(
            "div",
            { class: "inline confirm" },
            h("span", { text: t("resign_confirm") }),
            h("button", { type: "button", class: "danger", id: "resign-yes", text: t("yes_resign"), on: { click: () => { this.confirmingResign = false; this.act("resignation"); } } }),
            h("button", { type: "button", text: t("cancel"), on: { click: () => { this.confirmingResign = false; this.renderActions(); } } }),
          ),
        );
      } else {
        body.append(h("button", { type: "button", id: "resign", text: t("resign"), on: { click: () => { this.confirmingResign = true; this.renderActions(); $("#resign-yes").focus(); } } }));
      }
      if (view.awaiting.length && !view.awaiting.includes(this.me)) {
        const since = view.awaiting_since ? new Date(view.awaiting_since).toLocaleString(language()) : "";
        body.append(
          h("div", { class: "abandon" }, h("button", { type: "button", id: "abandon", text: t("abandon"), disabled: this.busy, on: { click: () => this.act("abandonment") } }), h("p", { class: "muted", text: `${t("abandon_help")} ${since ? t("waiting_since", { t: since }) : ""}` })),
        );
      }
    }
  }

  renderScores() {
    const view = this.view;
    const names = view.seats.map((seat) => seatName(view, seat.seat));
    const rows = view.history.map((entry) =>
      h(
        "tr",
        {},
        h("th", { scope: "row", text: entry.round }),
        entry.points.map((points, seat) =>
          h("td", {}, String(points), entry.moon === seat ? h("span", { class: "badge", text: ` ☾ ${t("moon_mark")}` }) : null, entry.accusation && entry.accusation.penalized_seat === seat ? h("span", { class: "badge warn", text: ` ⚑ ${t("accusation_mark")}` }) : null),
        ),
      ),
    );
    const table = h(
      "table",
      { class: "scores", id: "score-table" },
      h("thead", {}, h("tr", {}, h("th", { scope: "col", text: t("history_round") }), names.map((name) => h("th", { scope: "col", text: name })))),
      h("tbody", {}, rows),
      h(
        "tfoot",
        {},
        h("tr", {}, h("th", { scope: "row", text: t("total") }), view.seats.map((seat) => h("td", { class: "total", text: seat.score }))),
        view.status === "playing" || view.status === "passing" ? h("tr", { class: "muted" }, h("th", { scope: "row", text: t("round_points") }), view.seats.map((seat) => h("td", { text: seat.round_points }))) : null,
      ),
    );
    const teams = view.teams
      ? h(
          "table",
          { class: "scores teams" },
          h("caption", { text: t("teams") }),
          h("tbody", {}, view.teams.map((team) => h("tr", {}, h("th", { scope: "row", text: team.seats.map((seat) => names[seat]).join(" + ") }), h("td", { text: team.score }), h("td", { class: "muted", text: `${team.round_points} ${t("round_points")}` })))),
        )
      : null;
    $("#scores-body").replaceChildren(h("div", { class: "scroll" }, table), teams || "");
  }

  renderDeals() {
    const view = this.view;
    $("#deals-body").replaceChildren(
      view.deal_commitment && view.status !== "finished" ? h("p", {}, h("span", { text: `${t("commitment_now")}: ` }), h("code", { id: "commitment", class: "hash", text: view.deal_commitment })) : "",
    );
    $("#check-deals").disabled = !(view.history.length || view.result);
    const list = $("#deal-results");
    list.replaceChildren();
    if (this.dealResults) for (const line of this.dealResults) list.append(h("li", { class: line.ok === false ? "bad" : "ok", text: line.text }));
  }

  async checkDeals() {
    if (!canVerify()) {
      this.dealResults = [{ ok: false, text: t("no_crypto") }];
      this.renderDeals();
      return;
    }
    this.dealResults = [{ text: t("checking") }];
    this.renderDeals();
    try {
      const results = await verifyTable(this.entry.table_id, this.entry.token);
      const seen = seenCommitments(this.entry.table_id);
      this.dealResults = results.length
        ? results.map((result) => {
            const saw = seen[`${result.match}.${result.round}`];
            const sameAsSeen = saw === undefined ? "" : ` (${saw === result.commitment ? t("deal_seen_ok") : t("deal_seen_bad")})`;
            const ok = result.ok && (saw === undefined || saw === result.commitment);
            return { ok, text: t(result.ok ? "deal_ok" : "deal_bad", { m: result.match, r: result.round }) + sameAsSeen };
          })
        : [{ text: t("no_revealed") }];
    } catch (error) {
      this.dealResults = null;
      showError(error);
    }
    this.renderDeals();
  }

  async askHint() {
    try {
      const { body } = await request("GET", `/tables/${this.entry.table_id}/hint`, { token: this.entry.token, headers: { "Accept-Language": language() } });
      this.hint = { ...body, version: this.view.version };
      if (body.action === "pass" && Array.isArray(body.cards)) this.selected = new Set(body.cards);
    } catch (error) {
      if (error instanceof ApiError && (error.problem.code === "hints_disabled" || error.status === 404)) this.hintsRefused = true;
      else showError(error);
    }
    this.render();
  }

  async act(action, body) {
    if (this.busy) return;
    this.busy = true;
    document.body.dataset.busy = "true";
    this.render();
    const path = `/tables/${this.entry.table_id}/${action}`;
    try {
      const { body: answer } = await move(path, { token: this.entry.token, body, onRetry: () => showConnection("retrying") });
      clearError();
      if (action === "accusations") {
        this.accusationNote = t(answer.revoke_found ? "accuse_result_found" : "accuse_result_none", { name: seatName(answer, answer.penalized_seat) });
      }
      if (action === "passes") this.selected.clear();
      this.busy = false;
      this.show(answer);
    } catch (error) {
      showError(error);
    } finally {
      this.busy = false;
      document.body.dataset.busy = "false";
      if (this.view) this.render();
    }
  }

  async preferences(changes) {
    try {
      const { body } = await request("PATCH", `/tables/${this.entry.table_id}/me`, { token: this.entry.token, body: changes });
      clearError();
      if (changes.name) {
        this.entry.name = changes.name;
        seats.put(this.code, { name: changes.name });
        localStorage.setItem("copas.name", changes.name);
      }
      this.show(body);
    } catch (error) {
      showError(error);
    }
  }

  async copyInvite(link) {
    const note = $("#copy-note");
    try {
      if (navigator.clipboard && window.isSecureContext) await navigator.clipboard.writeText(link);
      else {
        const input = $("#invite-link");
        input.select();
        document.execCommand("copy");
      }
      note.textContent = t("copied");
    } catch {
      $("#invite-link").select();
    }
  }
}

// -- routing -----------------------------------------------------------------------

let page = null;

async function route() {
  if (page) page.destroy();
  page = null;
  showConnection("none");
  for (const key of ["version", "status", "role", "awaitingMe", "busy"]) delete document.body.dataset[key];
  const main = $("#main");
  const match = location.hash.match(/^#\/t\/([^/?#]+)/);
  try {
    if (!match) {
      await renderHome(main);
      return;
    }
    const code = decodeURIComponent(match[1]);
    const entry = seats.get(code);
    if (!entry) {
      await renderJoin(main, code);
      return;
    }
    page = new TablePage(code, entry);
    await page.mount(main);
  } finally {
    document.body.dataset.ready = "true";
  }
}

function translateChrome() {
  document.title = "Copas";
  $(".skip").textContent = t("skip");
  $("#lang-label").textContent = t("language");
  const select = $("#lang");
  select.value = language();
}

$("#lang").addEventListener("change", (event) => {
  setLanguage(event.target.value);
  translateChrome();
  if (page && page.view) {
    const view = page.view;
    page.build();
    page.show(view);
  } else route();
});
window.addEventListener("hashchange", () => {
  clearError();
  route();
});
window.addEventListener("unhandledrejection", (event) => {
  showError(event.reason);
});

if (!LANGUAGES.includes(language())) setLanguage("en");
translateChrome();
route();
