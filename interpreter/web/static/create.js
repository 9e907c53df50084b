// The create-a-game page: pick a ruleset, players and seat kinds; show one join link per seat.
const $ = (id) => document.getElementById(id);

function seatInputs() {
  const count = Math.max(1, Math.min(8, Number($("players").value) || 1));
  const box = $("seats");
  const old = [...box.querySelectorAll("select")].map((s) => s.value);
  box.textContent = "";
  for (let seat = 0; seat < count; seat++) {
    const label = document.createElement("label");
    label.textContent = `seat ${seat} `;
    const select = document.createElement("select");
    select.id = `seat-${seat}`;
    for (const kind of ["human", "random", "greedy", "mcts:200:20"]) {
      const option = document.createElement("option");
      option.value = option.textContent = kind;
      select.append(option);
    }
    select.value = old[seat] || "human";
    label.append(select);
    box.append(label);
  }
}

async function loadRulesets() {
  const response = await fetch("/api/rulesets");
  const { rulesets } = await response.json();
  for (const name of rulesets) {
    const option = document.createElement("option");
    option.value = option.textContent = name;
    $("ruleset").append(option);
  }
}

async function create(event) {
  event.preventDefault();
  $("error").textContent = "";
  const players = Number($("players").value);
  const body = {
    ruleset: $("ruleset").value,
    modules: $("modules").value.split(",").map((m) => m.trim()).filter(Boolean),
    players,
    seats: [...Array(players).keys()].map((seat) => $(`seat-${seat}`).value),
    delay: Number($("delay").value),
  };
  const response = await fetch("/api/games", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  const result = await response.json();
  if (!response.ok) { $("error").textContent = result.error; return; }
  $("links").textContent = "";
  for (const link of result.links) {
    const item = document.createElement("li");
    item.textContent = `seat ${link.seat} (${link.player}): `;
    if (link.player === "human") {
      const anchor = document.createElement("a");
      anchor.href = link.url; anchor.textContent = new URL(link.url, location.href).href;
      anchor.target = "_blank"; anchor.className = "join"; anchor.dataset.seat = link.seat;
      item.append(anchor);
    } else {
      item.append("played by the server");
    }
    $("links").append(item);
  }
}

$("players").addEventListener("input", seatInputs);
$("create").addEventListener("submit", create);
seatInputs();
loadRulesets();
