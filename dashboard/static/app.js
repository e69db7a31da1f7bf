// hookctl dashboard: live updates without a reload. Every few seconds each part of the page is
// fetched again, as HTML the server rendered and escaped, and swapped in, unless the user has
// a menu open in it. Addresses are relative to the dashboard's base path (the cookie's Path). No other script runs on the page (its Content-Security-Policy).
"use strict";
(function () {
  const every = 3000;
  const live = document.getElementById("live");
  async function refresh() {
    const parts = document.querySelectorAll("[data-part]");
    let ok = true;
    for (const el of parts) {
      const box = el.classList.contains("part") ? el : el.querySelector(".part");
      if (!box || box.querySelector("details[open]")) continue;
      try {
        const r = await fetch("part/" + el.dataset.part + location.search, { credentials: "same-origin", cache: "no-store" });
        if (!r.ok) { ok = false; continue; }
        const html = await r.text();
        if (box.dataset.last !== html) { box.innerHTML = html; box.dataset.last = html; }
      } catch (e) { ok = false; }
    }
    if (live) live.textContent = ok ? "live · updated " + new Date().toLocaleTimeString() : "⚠ not updating: is hookctl dashboard still running?";
  }
  if (document.querySelector("[data-part]")) setInterval(refresh, every);
})();
