// The seat page: shows what the server sends for this seat (the view model: board, areas,
// decision, actions grouped by kind and asked in steps) and sends the chosen action's index with
// the step it was chosen at. Nothing is filtered here: the server sends only this seat's data.
import { $, fragment, gameId, renderScores, renderTables, showGraph, viewTables } from "/static/common.js";

const { seat, token } = fragment();
const id = gameId();
let current = null;
let socket = null;
let chosen = {}; // action kind -> the values picked so far in its steps

function renderLog(log, players) {
  const box = $("log");
  box.textContent = "";
  for (const entry of log) {
    const line = document.createElement("div");
    const who = document.createElement("span");
    const player = players.find((p) => p.seat === entry.seat);
    who.textContent = `${player ? player.name : `seat ${entry.seat}`}: `;
    if (player && player.colour) { who.style.color = player.colour; who.className = "coloured"; }
    line.append(who, entry.text);
    if (entry.seat === seat) line.className = "mine";
    box.append(line);
  }
  box.scrollTop = box.scrollHeight;
}

function button(text, onClick, className) {
  const element = document.createElement("button");
  element.textContent = text;
  if (className) element.className = className;
  element.addEventListener("click", onClick);
  return element;
}

function send(choice) {
  chosen = {};
  socket.send(JSON.stringify({ type: "act", step: current.view.step, index: choice.index }));
}

// One group: its title, then either the next step's question with one button per value, or
// (when one step is left, or the values picked leave one action) the actions by their labels.
function renderGroup(group) {
  const box = document.createElement("div");
  box.className = "group";
  const prefix = chosen[group.kind] || [];
  const matching = group.choices.filter((choice) => prefix.every((value, i) => choice.path[i] === value));
  const depth = prefix.length;
  if (group.steps.length || group.choices.length > 1) { // a lone action without parameters is its own button
    const heading = document.createElement("h3");
    heading.textContent = prefix.length ? `${group.title}: ${prefix.join(", ")}` : group.title;
    box.append(heading);
  }
  const last = group.steps.length <= 1 || matching.length === 1 || depth >= group.steps.length - 1;
  if (group.steps[depth] && (depth || group.steps.length > 1)) {
    const question = document.createElement("p");
    question.className = "question";
    question.textContent = group.steps[depth].question;
    box.append(question);
  }
  if (last) {
    for (const choice of matching) box.append(button(choice.text ?? choice.label, () => send(choice), "final"));
  } else {
    for (const value of [...new Set(matching.map((choice) => choice.path[depth]))]) {
      box.append(button(value, () => { chosen[group.kind] = [...prefix, value]; renderActions(); }, "step"));
    }
  }
  if (depth) box.append(button("← back", () => { chosen[group.kind] = prefix.slice(0, -1); renderActions(); }, "back"));
  return box;
}

function renderActions() {
  const actions = $("actions");
  actions.textContent = "";
  for (const group of current.view.actions) actions.append(renderGroup(group));
}

function renderStatus(view) {
  const title = $("title");
  title.textContent = `${view.title} — you are `;
  const you = document.createElement("span");
  you.textContent = view.you.name;
  if (view.you.colour) { you.style.color = view.you.colour; you.className = "coloured"; }
  title.append(you);
  const waiting = view.players.filter((player) => player.current).map((player) => player.name).join(", ");
  $("status").textContent = view.terminal ? "game over"
    : view.actions.length ? `your turn (phase ${view.phase.label}, step ${view.step})`
    : `waiting for ${waiting} (phase ${view.phase.label}, step ${view.step})`;
  const decision = view.decision;
  $("pending").textContent = !decision ? "" : decision.yours ? `your decision: ${decision.about}`
    : `${decision.name} decides: ${decision.about}`;
}

// the moves as this seat may read them: a message carries only those from `log_from` on
let logEntries = [];

function render(message) {
  if (!current || current.view.step !== message.view.step) chosen = {};
  current = message;
  logEntries = message.log_from ? logEntries.slice(0, message.log_from).concat(message.log) : message.log;
  const view = message.view;
  renderStatus(view);
  renderActions();
  renderScores($("scores"), view.scores);
  renderTables($("board"), viewTables(view));
  renderLog(logEntries, view.players);
  showGraph($("graph"), id, view.phase.id);
  const link = $("replay-link");
  link.hidden = !view.terminal;
  link.href = `/replay/${id}#seat=${seat}&token=${encodeURIComponent(token)}`;
}

function connect() {
  socket = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws/${id}`);
  socket.addEventListener("open", () => socket.send(JSON.stringify({ type: "hello", seat, token })));
  socket.addEventListener("message", (event) => {
    const message = JSON.parse(event.data);
    if (message.type === "view") { $("refused").textContent = ""; render(message); }
    else if (message.type === "refused" || message.type === "error") $("refused").textContent = `refused: ${message.reason}`;
  });
  socket.addEventListener("close", () => { $("status").textContent = "disconnected — reconnecting…"; setTimeout(connect, 1000); });
}

connect();
