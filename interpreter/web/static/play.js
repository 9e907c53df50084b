// The seat page: shows what the server sends for this seat and sends the chosen action's index
// with the step it was chosen at. Nothing is filtered here: the server sends only this seat's data.
import { $, fragment, gameId, renderTables, showGraph } from "/static/common.js";

const { seat, token } = fragment();
const id = gameId();
let current = null;
let socket = null;

function renderLog(log) {
  const box = $("log");
  box.textContent = "";
  for (const entry of log) {
    const line = document.createElement("div");
    line.textContent = `seat ${entry.seat}: ${entry.text}`;
    if (entry.seat === seat) line.className = "mine";
    box.append(line);
  }
  box.scrollTop = box.scrollHeight;
}

function renderScores(message) {
  const box = $("scores");
  box.textContent = "";
  if (!message.scores) return;
  renderTables(box, { tables: [{ title: "scores (final)", columns: ["seat", "total", "winner"],
    rows: Object.entries(message.scores).map(([p, s]) => [`seat ${p}`, String(s.total), message.winners.includes(Number(p)) ? "yes" : ""]) }] });
}

function render(message) {
  current = message;
  const view = message.view;
  $("title").textContent = `${message.ruleset} — you are seat ${seat}`;
  $("status").textContent = view.terminal ? "game over"
    : message.actions.length ? `your turn (phase ${view.phase}, step ${view.step})`
    : `waiting for seat ${view.current.join(", ")} (phase ${view.phase}, step ${view.step})`;
  $("pending").textContent = view.pending ? `decision for seat ${view.pending.player}: ${view.pending.prompt}` : "";
  const actions = $("actions");
  actions.textContent = "";
  for (const action of message.actions) {
    const button = document.createElement("button");
    button.textContent = action.label;
    button.dataset.index = action.index;
    button.addEventListener("click", () => {
      socket.send(JSON.stringify({ type: "act", step: view.step, index: action.index }));
    });
    actions.append(button);
  }
  renderScores(message);
  renderTables($("board"), view);
  renderLog(message.log);
  showGraph($("graph"), id, view.phase);
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
