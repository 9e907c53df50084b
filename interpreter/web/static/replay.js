// The replay page: every step of a finished game from one perspective (a seat, or "all"),
// with a slider, back/forward and the cells changed by the last move highlighted.
import { $, fragment, gameId, renderTables, showGraph, viewTables } from "/static/common.js";

const { seat, token } = fragment();
const id = gameId();
let frames = [];

function show(index) {
  const frame = frames[index];
  $("slider").value = index;
  $("position").textContent = `step ${frame.step} of ${frames.length - 1}`;
  const mover = frame.move && frame.view.players.find((p) => p.seat === frame.move.seat);
  $("move").textContent = frame.move ? `move: ${mover ? mover.name : `seat ${frame.move.seat}`}: ${frame.move.text}` : "start of the game";
  renderTables($("board"), viewTables(frame.view), index > 0 ? viewTables(frames[index - 1].view) : null);
  showGraph($("graph"), id, frame.view.phase.id);
}

async function load(perspective) {
  const response = await fetch(`/api/games/${id}/replay`, { method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ seat, token, perspective }) });
  const result = await response.json();
  if (!response.ok) { $("refused").textContent = `refused: ${result.error}`; return; }
  frames = result.frames;
  const select = $("perspective");
  if (!select.options.length) {
    for (const value of ["all", ...result.seats.map((_, s) => String(s))]) {
      const option = document.createElement("option");
      option.value = value; option.textContent = value === "all" ? "all" : (result.names?.[Number(value)] ?? `seat ${value}`);
      select.append(option);
    }
  }
  $("slider").max = frames.length - 1;
  show(Math.min(Number($("slider").value), frames.length - 1));
}

$("slider").addEventListener("input", () => show(Number($("slider").value)));
$("back").addEventListener("click", () => show(Math.max(0, Number($("slider").value) - 1)));
$("forward").addEventListener("click", () => show(Math.min(frames.length - 1, Number($("slider").value) + 1)));
$("perspective").addEventListener("change", () => load($("perspective").value === "all" ? "all" : Number($("perspective").value)));
load("all");
