// Live code: the launch menu's "Live Code" turns the examples of the page into
// cells the learner can edit and run, on the Jupyter server that ./course serve
// starts on this machine (JAX is installed there). thebe, kept in _static/thebe/,
// does the work; this file finds the server, marks the cells for thebe, and says
// how to start a server when none answers.
//
// The server is http://localhost:8888 unless the page was opened with
// ?jupyter=URL, which this browser tab then remembers.
(function () {
  "use strict";
  const DEFAULT_SERVER = "http://localhost:8888";
  const SERVER_KEY = "pytrees-hands-on:jupyter-server";
  let started = false;

  // Read on every page, so the tab keeps the server it was pointed at from page to page.
  function serverUrl() {
    const asked = new URLSearchParams(window.location.search).get("jupyter");
    let url = asked;
    try {
      if (asked) window.sessionStorage.setItem(SERVER_KEY, asked);
      else url = window.sessionStorage.getItem(SERVER_KEY);
    } catch (error) {
      /* storage may be disabled: the default or this page's ?jupyter= still works */
    }
    return (url || DEFAULT_SERVER).replace(/\/+$/, "");
  }

  function staticUrl(path) {
    const root = document.documentElement.dataset.content_root || "./";
    return new URL(root + "_static/" + path, window.location.href).href;
  }

  function statusBox() {
    let box = document.querySelector(".pt-live-code");
    if (!box) {
      box = document.createElement("div");
      box.className = "pt-live-code";
      box.setAttribute("role", "status");
      const heading = document.querySelector("article h1") || document.querySelector("h1");
      heading.insertAdjacentElement("afterend", box);
    }
    return box;
  }

  // Fixed markup with the server's address escaped into it.
  function say(state, markup) {
    const box = statusBox();
    box.dataset.state = state;
    box.innerHTML = markup;
    box.scrollIntoView({ block: "nearest" });
  }

  function escaped(text) {
    const span = document.createElement("span");
    span.textContent = text;
    return span.innerHTML;
  }

  async function answers(server) {
    try {
      const response = await fetch(server + "/api/status", { cache: "no-store" });
      return response.ok;
    } catch (error) {
      return false; // nothing listening, or a server that does not accept this page
    }
  }

  function loadScript(src) {
    return new Promise(function (resolve, reject) {
      const script = document.createElement("script");
      script.src = src;
      script.onload = resolve;
      script.onerror = () => reject(new Error("could not load " + src));
      document.head.appendChild(script);
    });
  }

  function loadStyle(href) {
    const link = document.createElement("link");
    link.rel = "stylesheet";
    link.href = href;
    document.head.appendChild(link);
  }

  // thebe pairs the n-th [data-executable] with the n-th [data-output], so every
  // cell with code on the page gets an output element, empty or not.
  function markCells() {
    let count = 0;
    document.querySelectorAll("div.cell").forEach(function (cell) {
      const source = cell.querySelector(".cell_input pre");
      if (!source) return; // the page shows no code for it (a question, a diagram)
      source.setAttribute("data-executable", "true");
      source.setAttribute("data-language", "python");
      let output = cell.querySelector(".cell_output");
      if (!output) {
        output = document.createElement("div");
        output.className = "cell_output";
        cell.appendChild(output);
      }
      output.setAttribute("data-output", "");
      cell.querySelectorAll("button.copybtn").forEach((button) => button.remove());
      count += 1;
    });
    return count;
  }

  function options(server) {
    // Sphinx declares DOCUMENTATION_OPTIONS with const: a global, but not on window.
    const page =
      (typeof DOCUMENTATION_OPTIONS !== "undefined" && DOCUMENTATION_OPTIONS.pagename) || "book";
    const dark = document.documentElement.dataset.theme === "dark";
    return {
      useBinder: false,
      useJupyterLite: false,
      requestKernel: true,
      mountActivateWidget: false,
      mountStatusWidget: false,
      mountRestartAllButton: false,
      predefinedOutput: true,
      mathjaxUrl: "", // no MathJax from another site; the examples print no LaTeX
      selector: "[data-executable]",
      outputSelector: "[data-output]",
      serverSettings: {
        baseUrl: server,
        wsUrl: server.replace(/^http/, "ws"),
        token: "",
        appendToken: false,
      },
      // A notebook path beside the chapter's source, so the kernel runs in book/.
      kernelOptions: { kernelName: "python3", path: page + ".ipynb" },
      codeMirrorConfig: { theme: dark ? "darcula" : "default", mode: "python" },
    };
  }

  const NO_SERVER =
    "<p><strong>Live code needs the course's Jupyter server, and none answers at " +
    "<code>{server}</code>.</strong></p>" +
    "<p>In a terminal, in the course folder, run <code>./course serve</code>; it serves " +
    "this book on <code>http://localhost:8000</code> with the server next to it. Then open " +
    "the book there and choose Live Code again. A JupyterLab started another way does not " +
    "accept this page. To read the chapter as a notebook instead, use Binder in the " +
    "launch menu.</p>";

  // The page's kernel goes when the page does, rather than idling in the learner's
  // JupyterLab; keepalive lets the request outlive the page.
  function shutDownOnLeaving(server) {
    window.addEventListener("pagehide", function (event) {
      const session = window.thebe && window.thebe.session;
      if (event.persisted || !session) return;
      fetch(server + "/api/sessions/" + encodeURIComponent(session.id), {
        method: "DELETE",
        keepalive: true,
      }).catch(() => {});
    });
  }

  async function startLiveCode() {
    if (started) return;
    const server = serverUrl();
    say("connecting", "<p>Connecting to the Jupyter server at <code>" + escaped(server) + "</code>…</p>");
    if (!(await answers(server))) {
      say("no-server", NO_SERVER.replace("{server}", escaped(server)));
      return;
    }
    started = true; // from here on, trying again needs a fresh page
    try {
      loadStyle(staticUrl("thebe/thebe.css"));
      await loadScript(staticUrl("thebe/index.js"));
      if (markCells() === 0) {
        say("ready", "<p>This page has no code to run.</p>");
        return;
      }
      say("connecting", "<p>Starting a Python kernel on <code>" + escaped(server) + "</code>…</p>");
      await window.thebe.bootstrap(options(server));
      shutDownOnLeaving(server);
      say(
        "ready",
        "<p><strong>Live code is on.</strong> Edit any example and press its run button " +
          "(or Shift+Enter in it). The cells share one Python kernel, so run the first cell " +
          "first, as the chapter does.</p>",
      );
    } catch (error) {
      say(
        "failed",
        "<p><strong>Live code could not start:</strong> " + escaped(String(error)) +
          ". Reload the page to try again.</p>",
      );
    }
  }

  serverUrl();
  // The launch menu's button calls initThebeSBT(); this takes its place.
  window.initThebeSBT = startLiveCode;
  document.addEventListener("DOMContentLoaded", function () {
    window.initThebeSBT = startLiveCode;
  });
})();
