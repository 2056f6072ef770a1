// The table's page: draws the view the server sends and sends back the player's choices.
// It never decides what is legal: it offers the actions in view.decision and asks the
// server (/explain) why anything else is refused.
"use strict";

const $ = (id) => document.getElementById(id);
const el = (tag, attrs = {}, text = "") => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text) e.textContent = text;
  return e;
};

let battle = null; // /api/battle
let view = null; // the current view
let gameId = null;
let seat = null;
let replayId = null;
const INVITE = "+invite"; // the "against" choice of a second person, not a bot
let chosen = -1; // the unit whose moves are shown
let reach = null; // where the chosen unit can go in one move: /paths, for view.move
let zoom = 1, panX = 0, panY = 0;
const COUNTER = 40;

async function api(method, path, body) {
  const opts = { method, headers: { "Content-Type": "application/json" } };
  if (body !== undefined) opts.body = JSON.stringify(body);
  const r = await fetch(path, opts);
  const data = await r.json().catch(() => ({ error: `HTTP ${r.status}` }));
  if (!r.ok) throw Object.assign(new Error(data.error || r.statusText), { data });
  return data;
}

function showError(e) {
  const box = $("reason");
  box.hidden = false;
  box.innerHTML = "";
  box.append(el("div", { class: "error" }, e.message));
  if (e.data && e.data.reason) box.append(ruleLine(e.data.reason));
}

function ruleLine(r) {
  const d = el("div");
  if (!r) return d;
  if (r.title) d.append(el("span", {}, r.title + " "));
  if (r.cite) d.append(el("span", { class: "cite" }, r.cite));
  if (r.provisional) d.append(el("div", { class: "prov" }, "provisional: " + r.provisional));
  return d;
}

function setUrl() {
  const q = replayId ? `?replay=${replayId}` : gameId ? `?game=${gameId}&side=${seat}` : "";
  history.replaceState(null, "", "/" + q);
}

// ------------------------------------------------------------------ board

function applyZoom() {
  $("board").style.transform = `translate(${panX}px, ${panY}px) scale(${zoom})`;
}

function hexAt(x, y) {
  let best = null, bestD = Infinity;
  for (const [label, [cx, cy]] of Object.entries(battle.map.centres)) {
    const d = (cx - x) ** 2 + (cy - y) ** 2;
    if (d < bestD) { bestD = d; best = label; }
  }
  return bestD <= battle.map.radius ** 2 ? best : null;
}

function boardPoint(ev) {
  const r = $("board").getBoundingClientRect();
  return [(ev.clientX - r.left) / zoom, (ev.clientY - r.top) / zoom];
}

function drawCounters() {
  const layer = $("counters");
  layer.innerHTML = "";
  const stacks = {};
  battle.units.forEach((u, i) => {
    const st = view.units[u.name];
    if (st && st.status === "map" && st.hex) (stacks[st.hex] = stacks[st.hex] || []).push(i);
  });
  const movers = view.decision ? new Set(Object.keys(view.decision.moves).map(Number)) : new Set();
  for (const [label, units] of Object.entries(stacks)) {
    const [x, y] = battle.map.centres[label];
    const stack = el("div", { class: "stack", "data-hex": label });
    stack.style.left = `${x - COUNTER / 2}px`;
    stack.style.top = `${y - COUNTER / 2}px`;
    units.forEach((i, n) => {
      const u = battle.units[i];
      const face = u.faces[Math.min(view.units[u.name].steps_lost, u.faces.length - 1)];
      const img = el("img", {
        class: "counter", src: `/api/face/${face}.png`, title: `${u.title} (${label})`,
        "data-unit": i, "data-hex": label, draggable: "false",
      });
      img.style.width = img.style.height = `${COUNTER}px`;
      img.style.transform = `translate(${n * 3}px, ${-n * 3}px)`;
      img.dataset.fan = `translate(${n * (COUNTER + 2)}px, 0)`;
      img.dataset.rest = img.style.transform;
      if (movers.has(i)) img.classList.add("can-move");
      if (i === chosen) img.classList.add("chosen");
      img.addEventListener("click", (ev) => { ev.stopPropagation(); clickUnit(i, label); });
      stack.append(img);
    });
    stack.addEventListener("mouseenter", () => {
      for (const c of stack.children) c.style.transform = c.dataset.fan;
    });
    stack.addEventListener("mouseleave", () => {
      for (const c of stack.children) c.style.transform = c.dataset.rest;
    });
    layer.append(stack);
  }
  // Terrain changed in play (a bridge blown, a pontoon laid where its player chose):
  // its marker on each hex and hexside.
  for (const c of view.terrain_changes || []) {
    const places = [...c.hexes.map((h) => [h]), ...c.hexsides];
    const title = c.place ? `${c.title} at ${c.place}` : c.title;
    for (const hexes of places) {
      const points = hexes.map((h) => battle.map.centres[h]);
      const x = points.reduce((t, p) => t + p[0], 0) / points.length;
      const y = points.reduce((t, p) => t + p[1], 0) / points.length;
      const size = COUNTER * 0.7;
      const m = c.marker
        ? el("img", { class: "counter terrain-change", src: `/api/face/${c.marker}-front.png`, title, draggable: "false" })
        : el("div", { class: "concealed terrain-change", title }, "!");
      Object.assign(m.style, { left: `${x - size / 2}px`, top: `${y - size / 2}px`, width: `${size}px`, height: `${size}px`, position: "absolute", pointerEvents: "none" });
      layer.append(m);
    }
  }
  // Markers the rules placed on hexes: their face, or face down in the owner's colour
  // where this side may only see that one lies there. Drawn at the hex's upper right,
  // clear of the stack.
  for (const p of view.placed_markers || []) {
    const [cx, cy] = battle.map.centres[p.hex];
    const size = COUNTER * 0.55;
    const x = cx + battle.map.radius * 0.45 - size / 2;
    const y = cy - battle.map.radius * 0.45 - size / 2;
    const owner = battle.sides.find((s) => s.name === p.side);
    const title = p.marker ? `${p.title}: ${p.marker_title} (${p.hex})` : `${p.title}: a face-down marker (${p.hex})`;
    const m = p.marker
      ? el("img", { class: "counter placed-marker", src: `/api/face/${p.marker}-front.png`, title, draggable: "false" })
      : el("div", { class: "concealed placed-marker", title }, "?");
    Object.assign(m.style, { left: `${x}px`, top: `${y}px`, width: `${size}px`, height: `${size}px`, lineHeight: `${size}px`, position: "absolute", pointerEvents: "none" });
    if (!p.marker && owner) m.style.background = owner.color;
    layer.append(m);
  }
  for (const [label, n] of Object.entries(view.concealed || {})) {
    const [x, y] = battle.map.centres[label];
    const d = el("div", { class: "concealed", title: `${n} unit(s) you may not examine` }, `${n}?`);
    Object.assign(d.style, { left: `${x - 16}px`, top: `${y - 16}px`, width: "32px", height: "32px", lineHeight: "32px" });
    layer.append(d);
  }
}

function drawMarks() {
  const layer = $("marks");
  layer.innerHTML = "";
  const mark = (label, cls, text, size = 0.8) => {
    const r = battle.map.radius * size;
    const [x, y] = battle.map.centres[label];
    const d = el("div", { class: cls, "data-hex": label }, text);
    Object.assign(d.style, { left: `${x - r}px`, top: `${y - r}px`, width: `${2 * r}px`, height: `${2 * r}px`, lineHeight: `${2 * r}px` });
    layer.append(d);
    return d;
  };
  for (const c of view.combats || []) {
    if (c.resolved) continue;
    for (const h of c.defense_hexes) mark(h, "target combat fought" + (c.now ? " now" : ""), "");
    for (const h of c.attack_hexes) mark(h, "selected-hex attacker" + (c.now ? " now" : ""), "");
  }
  if (!view.decision) return;
  const moves = view.decision.moves[chosen];
  if (moves) {
    const st = view.units[battle.units[chosen].name];
    mark(st.hex, "selected-hex", "");
    const spent = moves.length ? moves[0].spent : 0, allowance = moves.length ? moves[0].allowance : 0;
    // One click on a destination moves the unit the cheapest legal way (each step an
    // action of the log); the way is drawn while the pointer rests on the destination.
    for (const p of destinations()) {
      // The next steps marked full size, the hexes beyond smaller: the map stays legible.
      const d = mark(p.hex, p.hexes.length > 1 ? "target beyond" : "target", `${p.cost} MP`, p.hexes.length > 1 ? 0.58 : 0.8);
      d.dataset.path = p.hexes.join(" ");
      d.title = `${p.cost} MP by ${p.hexes.join(", ")} (spent ${spent} of ${allowance} before)`;
      d.addEventListener("mouseenter", () => drawPath(p));
      d.addEventListener("mouseleave", () => drawPath(null));
      d.addEventListener("click", (ev) => { ev.stopPropagation(); moveTo(p.hex); });
    }
  }
  for (const a of view.decision.actions) {
    if (a.kind === "hex") {
      const d = mark(a.hex, "target choice", "");
      d.title = a.text;
      d.addEventListener("click", (ev) => { ev.stopPropagation(); act(a.action); });
    }
    if (a.kind === "designate") for (const h of a.defend) if (!layer.querySelector(`.combat[data-hex="${h}"]`)) mark(h, "target combat", "⚔").style.pointerEvents = "none";
  }
}

function destinations() {
  // The chosen unit's destinations: the whole move once /paths has answered for this
  // position, its next steps until then.
  if (reach && reach.unit === chosen && reach.move === view.move) return reach.paths;
  return (view.decision.moves[chosen] || []).map((m) => ({ hex: m.hex, cost: m.cost, hexes: [m.hex] }));
}

function drawPath(p) {
  for (const d of document.querySelectorAll(".path-step")) d.remove();
  if (!p) return;
  const r = battle.map.radius * 0.25;
  for (const h of p.hexes.slice(0, -1)) {
    const [x, y] = battle.map.centres[h];
    const d = el("div", { class: "path-step", "data-hex": h });
    Object.assign(d.style, { left: `${x - r}px`, top: `${y - r}px`, width: `${2 * r}px`, height: `${2 * r}px` });
    $("marks").append(d);
  }
}

function chooseUnit(i) {
  chosen = chosen === i ? -1 : i;
  $("reason").hidden = true;
  render();
  if (chosen >= 0) askReach(i);
}

async function askReach(i) {
  if (!gameId || replayId) return;
  const asked = view.move;
  try {
    const r = await api("POST", `/api/games/${gameId}/paths`, { side: seat, unit: i });
    if (chosen === i && view.move === asked) { reach = r; drawMarks(); }
  } catch (e) { showError(e); }
}

async function moveTo(label) {
  try {
    $("reason").hidden = true;
    update(await api("POST", `/api/games/${gameId}/move`, { side: seat, move: view.move, unit: chosen, hex: label }));
  } catch (e) { showError(e); }
}

function clickUnit(i, label) {
  // A lit hex holding a friendly counter: the click moves the chosen unit there.
  const lit = i !== chosen && chosen >= 0 && view && view.decision && view.decision.moves[chosen] && destinations().find((p) => p.hex === label);
  if (lit) return moveTo(label);
  if (view && view.decision && view.decision.moves[i]) return chooseUnit(i);
  const pick = view && view.decision && view.decision.actions.find((a) => a.kind === "unit" && a.unit === i && !view.decision.moves[i]);
  if (pick) return act(pick.action);
  const hexPick = view && view.decision && view.decision.actions.find((a) => a.kind === "hex" && a.hex === label);
  if (hexPick) return act(hexPick.action);
  if (chosen >= 0) return explainHex(label);
  // A unit that cannot move now (its MP spent, in an enemy ZOC, held by a result), or
  // that is not among the units offered: the engine says why.
  const d = view && view.decision;
  if (d && (Object.keys(d.moves).length || d.actions.some((a) => a.kind === "unit"))) return explainChoice({ unit: i });
  if (view && view.decision && view.decision.actions.some((a) => a.kind === "hex")) return explainChoice({ hex: label });
  if (designating()) return explainAttack(label);
}

function designating() {
  return !!(view && view.decision && view.decision.actions.some((a) => a.kind === "designate"));
}

async function explainAttack(label) {
  // A click on a hex while close combats are designated: the designations that attack it,
  // or the rule that keeps any from doing so.
  const offered = view.decision.actions.filter((a) => a.kind === "designate" && a.defend.includes(label));
  const box = $("reason");
  if (offered.length) {
    box.innerHTML = "";
    box.hidden = false;
    box.append(el("div", { id: "reason-text" }, `${label} can be attacked: ` + offered.map((a) => a.text).join("; ") + "."));
    return;
  }
  await explainChoice({ hex: label, attack: true });
}

async function explainChoice(what) {
  // Why a unit or hex the player points at is not among the choices offered.
  try {
    const r = await api("POST", `/api/games/${gameId}/explain`, { side: seat, ...what });
    const box = $("reason");
    box.innerHTML = "";
    box.hidden = false;
    if (!r.legal) {
      box.append(el("div", { id: "reason-text" }, r.reason.text));
      box.append(ruleLine(r.reason));
    }
  } catch (e) { showError(e); }
}

async function explainHex(label) {
  if (chosen < 0 || !gameId) return;
  try {
    const r = await api("POST", `/api/games/${gameId}/explain`, { side: seat, unit: chosen, hex: label });
    const box = $("reason");
    box.innerHTML = "";
    box.hidden = false;
    if (r.legal) box.append(el("div", {}, `${battle.units[chosen].title} can get to ${label} in this move.`));
    else {
      const text = r.reason.text.startsWith(label) ? r.reason.text : `${label}: ${r.reason.text}`;
      box.append(el("div", { id: "reason-text" }, text));
      box.append(ruleLine(r.reason));
    }
  } catch (e) { showError(e); }
}

// ------------------------------------------------------------------ panel

function render() {
  drawCounters();
  drawMarks();
  renderStatus();
  renderRulesPlayed();
  renderDecision();
  renderRoll();
  renderTracks();
  renderOffmap();
  const lines = $("lines");
  lines.innerHTML = "";
  for (const line of view.account.slice(-300)) lines.append(el("li", {}, line));
  lines.scrollTop = lines.scrollHeight;
  const live = !!gameId && !replayId;
  // A button the server would refuse is disabled, its reason in its tooltip.
  const refused = view.refusals || {};
  for (const id of ["undo", "log", "replay"]) {
    $(id).disabled = !live || !!refused[id];
    $(id).title = live && refused[id] ? refused[id] : "";
  }
  $("save").disabled = !live;
}

function renderStatus() {
  const s = $("status");
  s.innerHTML = "";
  const turn = view.turn_label ? `Turn ${view.turn} (${view.turn_label})` : `Turn ${view.turn}`;
  s.append(el("div", {}, `${turn} of ${view.last_turn} — ${view.phase}`));
  let whose;
  const sideTitle = (name) => (battle.sides.find((x) => x.name === name) || { title: name }).title;
  if (view.over) whose = view.over.winner ? `Game over: the ${sideTitle(view.over.winner)} wins a ${view.over.level} victory` : "Game over: a draw";
  else if (view.to_move === "chance") whose = view.waits_for_roll ? "A die is to be rolled" : "Chance";
  else whose = `${view.to_move_title} to decide`;
  s.append(el("div", { class: "whose", id: "whose" }, whose));
  const rolled = view.account.filter((line) => / rolled /.test(line)).pop();
  if (rolled) s.append(el("div", { id: "lastroll" }, "Last roll — " + rolled));
  const seatTitle = view.seat === "both" ? "every side (hot seat)" : (battle.sides.find((x) => x.name === view.seat) || { title: view.seat }).title;
  if (view.seat) s.append(el("div", {}, `You play: ${seatTitle}` + (view.bot && view.humans.length < battle.sides.length ? ` — against the ${battle.bot_titles[view.bot] || view.bot} bot` : "")));
  for (const [side, token] of Object.entries(view.invitations || {})) {
    const link = `${location.origin}/?game=${view.game}&side=${side}#invite=${token}`;
    const title = (battle.sides.find((x) => x.name === side) || { title: side }).title;
    const box = el("div", { class: "invitation" }, `Invite the ${title} player with this link (it works once): `);
    box.append(el("input", { readonly: "", value: link, size: "40", "data-side": side }));
    s.append(box);
  }
  if (view.over && view.seed !== null) s.append(el("div", { id: "seed" }, `The dice were seed ${view.seed}.`));
}

// The rules the players choose before a game (optional, advanced, play balance), as the
// chosen scenario sets them; New game plays with the boxes as they are ticked. A rule
// that is part of another is ticked only with it; ticking a rule unticks those it excludes.
const RULE_FLAGS = { advanced: "advanced", optional: "optional", play_balance: "play balance" };

function showRuleChoices() {
  const box = $("rulechoices");
  box.innerHTML = "";
  const sc = battle.scenarios.find((x) => x.name === $("scenario").value);
  const choices = sc ? sc.rules : battle.rules;
  for (const r of choices) {
    const label = el("label", { class: r.part_of ? "rule within" : "rule" });
    const input = el("input", { type: "checkbox", name: r.name });
    input.checked = r.on;
    input.addEventListener("change", () => ruleTicked(r, input.checked));
    label.append(input, ` ${r.title} `, el("span", { class: "flag" }, `(${RULE_FLAGS[r.flag]})`));
    if (r.part_of) label.append(el("span", { class: "part-of" }, `played with ${r.part_of_title} only`));
    box.append(label);
  }
  // The rules the scenario sets, which the players do not choose.
  const set = sc ? sc.rules_set : battle.rules_set;
  if (set.on.length) box.append(el("div", { class: "rules-set", id: "rules-set-on" }, `Always played here: ${set.on.join(", ")}.`));
  if (set.off.length) box.append(el("div", { class: "rules-set", id: "rules-set-off" }, `Not used in this scenario: ${set.off.join(", ")}.`));
  $("rulesbox").hidden = !choices.length && !set.on.length && !set.off.length;
  keepRulesTogether();
}

function ruleBox(name) {
  return $("rulechoices").querySelector(`input[name="${CSS.escape(name)}"]`);
}

function ruleTicked(r, on) {
  if (on) for (const other of r.excludes) { const b = ruleBox(other); if (b) b.checked = false; }
  keepRulesTogether();
}

// A rule part of another the players leave out is left out too, its box greyed.
function keepRulesTogether() {
  for (const input of $("rulechoices").querySelectorAll("input[type=checkbox]")) {
    const sc = battle.scenarios.find((x) => x.name === $("scenario").value);
    const r = (sc ? sc.rules : battle.rules).find((x) => x.name === input.name);
    const whole = r.part_of ? ruleBox(r.part_of) : null;
    input.disabled = !!whole && !whole.checked;
    if (input.disabled) input.checked = false;
  }
}

function renderRulesPlayed() {
  const box = $("rulesplayed");
  box.innerHTML = "";
  const rules = view.rules || [];
  if (!rules.length) return;
  const on = rules.filter((r) => r.on).map((r) => r.title);
  const off = rules.filter((r) => !r.on).map((r) => r.title);
  if (on.length) box.append(el("div", { id: "rules-on" }, `Played with: ${on.join(", ")}.`));
  if (off.length) box.append(el("div", { id: "rules-off" }, `Left out: ${off.join(", ")}.`));
}

function renderDecision() {
  const box = $("decision");
  box.innerHTML = "";
  const d = view.decision;
  if (!d) return;
  box.append(el("h3", {}, d.prompt));
  box.append(ruleLine(d.rule));
  const choices = el("div", { class: "choices" });
  const onMap = d.actions.filter((a) => a.kind === "hex").length;
  if (onMap) box.append(el("div", { id: "hexchoice" }, onMap === 1 ? "Click the lit hex on the map." : `Click one of the ${onMap} lit hexes on the map.`));
  for (const a of d.actions) {
    if (a.kind === "step" || a.kind === "hex") continue; // on the map
    const label = d.yes_no ? (a.text.endsWith(" yes") ? "Yes" : "No") : a.text;
    const b = el("button", { "data-action": a.action, "data-kind": a.kind }, label);
    b.addEventListener("click", () => act(a.action));
    choices.append(b);
  }
  const movers = Object.keys(d.moves).length;
  if (movers) box.append(el("div", {}, `${movers} unit(s) may move: click one to see where, and what it costs.`));
  box.append(choices);
}

function renderRoll() {
  const box = $("roll");
  box.innerHTML = "";
  const open = (view.combats || []).filter((c) => !c.resolved);
  if (open.length) {
    box.append(el("h3", {}, "Close combats"));
    const list = el("ol", { id: "combats" });
    for (const c of open) {
      const div = c.diverted ? " (diverted: one column left)" : "";
      const now = c.now ? " — being fought" : "";
      list.append(el("li", c.now ? { class: "now" } : {}, `${c.attackers.join(", ")} (${c.attack_hexes.join(", ")}) attack ${c.defenders.join(", ")} (${c.defense_hexes.join(", ")})${div}${now}`));
    }
    box.append(list);
  }
  const r = view.roll;
  if (!r) return;
  box.append(el("h3", { id: "rolltable" }, `${r.table}${r.column ? " — column " + r.column : ""}`));
  if (r.cite) box.append(el("div", { class: "cite" }, r.cite));
  box.append(ruleLine(r.step));
  const t = el("table", { id: "drms" });
  for (const m of r.modifiers) {
    const tr = el("tr");
    tr.append(el("td", { class: "amount" }, (m.amount > 0 ? "+" : "") + m.amount));
    const td = el("td", {}, m.label + " ");
    td.append(el("span", { class: "cite" }, m.cite));
    if (m.provisional) td.append(el("div", { class: "prov" }, "provisional: " + m.provisional));
    tr.append(td);
    t.append(tr);
  }
  if (!r.modifiers.length) t.append(el("tr", {}, "no modifier applies"));
  box.append(t);
  box.append(el("div", {}, `DRM total ${r.total >= 0 ? "+" : ""}${r.total}`));
  if (view.waits_for_roll && !replayId) {
    const b = el("button", { id: "rollbutton" }, "Roll");
    b.addEventListener("click", async () => {
      try { update(await api("POST", `/api/games/${gameId}/roll`, { side: seat, move: view.move })); } catch (e) { showError(e); }
    });
    box.append(b);
  }
}

function renderTracks() {
  const box = $("tracks");
  box.innerHTML = "";
  const t = el("table");
  const head = el("tr");
  head.append(el("th", {}, ""));
  for (const s of battle.sides) head.append(el("th", {}, s.title));
  t.append(head);
  for (const tr of view.tracks) {
    const row = el("tr");
    row.append(el("td", {}, tr.title));
    for (const s of battle.sides) row.append(el("td", {}, String(tr.values[s.name])));
    t.append(row);
  }
  box.append(t);
}

function renderOffmap() {
  const box = $("offmap");
  box.innerHTML = "";
  const boxes = { not_entered: "To enter (turn track)", eliminated: "Eliminated", captured: "Captured", exited: "Exited", out_of_play: "Out of play" };
  for (const [status, title] of Object.entries(boxes)) {
    const units = battle.units.filter((u) => view.units[u.name] && view.units[u.name].status === status);
    if (!units.length) continue;
    box.append(el("h3", {}, title));
    const row = el("div", { class: "box" });
    for (const u of units) row.append(el("img", { src: `/api/face/${u.name}-front.png`, title: u.title }));
    box.append(row);
  }
  const hand = $("hand");
  hand.innerHTML = "";
  for (const c of Object.values(view.bags)) {
    const parts = [...c.markers];
    if (c.face_down) parts.push(`${c.face_down} face down`);
    hand.append(el("div", {}, `${c.title}: ${parts.join(", ") || "empty"}`));
  }
}

// ------------------------------------------------------------------ game

let fitted = false;

function fitToUnits() {
  // Frame the units on the map (the whole map when none is on it yet).
  const vp = $("viewport");
  const pts = battle.units.map((u) => view.units[u.name]).filter((st) => st && st.status === "map" && st.hex)
    .map((st) => battle.map.centres[st.hex]);
  let [x0, y0, x1, y1] = [0, 0, battle.map.width, battle.map.height];
  if (pts.length) {
    const pad = 4 * battle.map.radius;
    x0 = Math.min(...pts.map((p) => p[0])) - pad; x1 = Math.max(...pts.map((p) => p[0])) + pad;
    y0 = Math.min(...pts.map((p) => p[1])) - pad; y1 = Math.max(...pts.map((p) => p[1])) + pad;
  }
  zoom = Math.min(1.6, vp.clientWidth / (x1 - x0), vp.clientHeight / (y1 - y0));
  panX = (vp.clientWidth - (x1 - x0) * zoom) / 2 - x0 * zoom;
  panY = (vp.clientHeight - (y1 - y0) * zoom) / 2 - y0 * zoom;
  applyZoom();
}

function update(v) {
  view = v;
  if (view.scenario && $("scenario").value !== view.scenario) {
    $("scenario").value = view.scenario;
    showRuleChoices();
  }
  if (view.seat) $("side").value = view.seat;
  const twoPeople = view.humans && view.humans.length === battle.sides.length && view.seat !== "both";
  if (twoPeople) $("bot").value = INVITE;
  else if (view.bot) $("bot").value = view.bot;
  if (!fitted) { fitted = true; fitToUnits(); }
  if (!view.decision || !view.decision.moves[chosen]) {
    const keep = view.decision && chosen >= 0 && view.decision.moves[chosen];
    if (!keep) chosen = -1;
  }
  render();
  if (chosen >= 0 && !(reach && reach.unit === chosen && reach.move === view.move)) askReach(chosen);
}

async function act(action) {
  try {
    $("reason").hidden = true;
    update(await api("POST", `/api/games/${gameId}/act`, { side: seat, move: view.move, action }));
  } catch (e) { showError(e); }
}

async function newGame() {
  try {
    replayId = null;
    $("replaybox").hidden = true;
    const against = $("bot").value;
    const rules = {};
    for (const box of $("rulechoices").querySelectorAll("input[type=checkbox]")) rules[box.name] = box.checked;
    const r = await api("POST", "/api/games", {
      scenario: $("scenario").value || undefined, side: $("side").value,
      ...(against === INVITE ? { invite: true } : { bot: against }),
      rules,
    });
    gameId = r.game; seat = $("side").value; chosen = -1; fitted = false;
    setUrl();
    update(r.view);
  } catch (e) { showError(e); }
}

async function refreshSaves() {
  const r = await api("GET", "/api/saves");
  const sel = $("saves");
  sel.innerHTML = "";
  for (const name of r.saves) sel.append(el("option", { value: name }, name));
}

async function loadReplay(id) {
  replayId = id; gameId = null;
  $("replaybox").hidden = false;
  setUrl();
  await stepReplay(0);
}

async function stepReplay(n) {
  const v = await api("GET", `/api/replays/${replayId}/${n}`);
  $("scrub").max = v.length;
  $("scrub").value = v.step;
  const box = $("replaytext");
  box.innerHTML = "";
  box.append(el("div", { class: "now" }, `Step ${v.step} of ${v.length}` + (v.action ? `: ${v.action}` : " (the start)")));
  for (const line of v.step_account) box.append(el("div", {}, line));
  view = v;
  view.decision = null;
  if (v.scenario) $("scenario").value = v.scenario;
  if (!fitted) { fitted = true; fitToUnits(); }
  render();
  const lines = $("lines");
  lines.innerHTML = "";
  for (const line of v.account.slice(-300)) lines.append(el("li", {}, line));
  lines.scrollTop = lines.scrollHeight;
}

function wire() {
  $("new").addEventListener("click", newGame);
  $("undo").addEventListener("click", async () => {
    try { update(await api("POST", `/api/games/${gameId}/undo`, { side: seat, move: view.move })); } catch (e) { showError(e); }
  });
  $("save").addEventListener("click", async () => {
    try {
      const r = await api("POST", `/api/games/${gameId}/save`, { side: seat });
      await refreshSaves();
      $("saves").value = r.save;
      $("account").prepend(el("div", { id: "saved" }, `Saved as ${r.save}`));
    } catch (e) { showError(e); }
  });
  $("load").addEventListener("click", async () => {
    try {
      const r = await api("POST", "/api/load", { save: $("saves").value });
      replayId = null; gameId = r.game; seat = r.view.seat; chosen = -1;
      setUrl();
      update(r.view);
    } catch (e) { showError(e); }
  });
  $("log").addEventListener("click", async () => {
    const r = await fetch(`/api/games/${gameId}/log?side=${seat}`);
    if (!r.ok) return showError(new Error((await r.json()).error));
    const a = el("a", { href: URL.createObjectURL(await r.blob()), download: `${battle.name}-${gameId}.jsonl` });
    a.click();
  });
  $("replay").addEventListener("click", async () => {
    try { const r = await api("POST", `/api/games/${gameId}/replay`, { side: seat }); await loadReplay(r.replay); } catch (e) { showError(e); }
  });
  $("first").addEventListener("click", () => stepReplay(0));
  $("last").addEventListener("click", () => stepReplay(Number($("scrub").max)));
  $("back").addEventListener("click", () => stepReplay(Math.max(0, view.step - 1)));
  $("fwd").addEventListener("click", () => stepReplay(Math.min(view.length, view.step + 1)));
  $("scrub").addEventListener("change", () => stepReplay(Number($("scrub").value)));
  const vp = $("viewport");
  // Zoom keeps the point (mx, my) of the view where it is: the pointer for the wheel,
  // the middle of the view for the buttons.
  const zoomBy = (f, mx = vp.clientWidth / 2, my = vp.clientHeight / 2) => {
    panX = mx - (mx - panX) * f; panY = my - (my - panY) * f; zoom *= f;
    applyZoom();
  };
  $("zoomin").addEventListener("click", () => zoomBy(1.25));
  $("zoomout").addEventListener("click", () => zoomBy(1 / 1.25));
  vp.addEventListener("wheel", (ev) => {
    ev.preventDefault();
    const r = vp.getBoundingClientRect();
    zoomBy(ev.deltaY < 0 ? 1.15 : 1 / 1.15, ev.clientX - r.left, ev.clientY - r.top);
  }, { passive: false });
  let hoverTimer = null, hovered = null;
  vp.addEventListener("mousemove", (ev) => {
    if (drag || chosen < 0 || !view || !view.decision) return;
    const label = hexAt(...boardPoint(ev));
    if (!label || label === hovered) return;
    hovered = label;
    clearTimeout(hoverTimer);
    const lit = view.decision.moves[chosen] && destinations().some((p) => p.hex === label);
    const here = view.units[battle.units[chosen].name].hex === label;
    if (!lit && !here) hoverTimer = setTimeout(() => explainHex(label), 250);
  });
  let drag = null;
  vp.addEventListener("mousedown", (ev) => { drag = [ev.clientX, ev.clientY, panX, panY, false]; });
  window.addEventListener("mousemove", (ev) => {
    if (!drag) return;
    const dx = ev.clientX - drag[0], dy = ev.clientY - drag[1];
    if (Math.abs(dx) + Math.abs(dy) > 4) drag[4] = true;
    panX = drag[2] + dx; panY = drag[3] + dy; applyZoom();
  });
  window.addEventListener("mouseup", (ev) => {
    const moved = drag && drag[4];
    drag = null;
    if (moved || !view || ev.target.closest("#panel, #bar")) return;
    if (!ev.target.closest("#viewport") || ev.target.closest(".counter, .target")) return;
    const label = hexAt(...boardPoint(ev));
    if (!label) return;
    const hexPick = view.decision && view.decision.actions.find((a) => a.kind === "hex" && a.hex === label);
    if (hexPick) act(hexPick.action);
    else if (chosen >= 0) explainHex(label);
    else if (view.decision && view.decision.actions.some((a) => a.kind === "hex")) explainChoice({ hex: label });
    else if (designating()) explainAttack(label);
  });
}

async function start() {
  battle = await api("GET", "/api/battle");
  document.title = `${battle.title} — Muster table`;
  $("title").textContent = battle.title;
  for (const sc of battle.scenarios) $("scenario").append(el("option", { value: sc.name }, sc.title));
  for (const s of battle.sides) $("side").append(el("option", { value: s.name }, s.title));
  $("side").append(el("option", { value: "both" }, "both sides (hot seat)"));
  for (const b of battle.bots) $("bot").append(el("option", { value: b }, `the ${battle.bot_titles[b]} bot`));
  $("bot").append(el("option", { value: INVITE }, "a person I invite"));
  const d = battle.defaults;
  if (d.scenario) $("scenario").value = d.scenario;
  showRuleChoices();
  $("scenario").addEventListener("change", showRuleChoices);
  $("side").value = d.side; $("bot").value = d.bot;
  const m = $("map");
  m.width = battle.map.width; m.height = battle.map.height;
  const fit = Math.min($("viewport").clientWidth / battle.map.width, $("viewport").clientHeight / battle.map.height);
  zoom = Math.max(0.25, Math.min(1, fit));
  applyZoom();
  wire();
  await refreshSaves();
  const q = new URLSearchParams(location.search);
  if (q.get("replay")) return loadReplay(q.get("replay"));
  if (q.get("game")) {
    gameId = q.get("game"); seat = q.get("side") || d.side;
    // An invitation (in the address's fragment, which no server sees) is spent on the
    // seat it offers; the seat is this browser's from then on, by its cookie.
    const invitation = new URLSearchParams(location.hash.slice(1)).get("invite");
    history.replaceState(null, "", location.pathname + location.search);
    try {
      if (invitation) {
        const r = await api("POST", `/api/games/${gameId}/join`, { invitation });
        seat = r.seat; setUrl(); update(r.view); return;
      }
      update(await api("GET", `/api/games/${gameId}?side=${seat}`)); return;
    } catch (e) { gameId = null; showError(e); }
  }
  view = null;
  $("status").textContent = "Choose a scenario and a side, then New game.";
}

// In a hot-seat game played in two tabs (one per side), the other side decides elsewhere:
// look for news every two seconds while the decision is not this page's.
setInterval(async () => {
  if (!gameId || replayId || !view || view.over || view.decision || view.waits_for_roll) return;
  try {
    const v = await api("GET", `/api/games/${gameId}?side=${seat}`);
    if (v.move !== view.move) update(v);
  } catch (e) { /* the next poll tries again */ }
}, 2000);

start();
