// Live code: the launch menu's "Live Code" turns the examples of the page into
// cells the learner can edit and run, on the Jupyter server that ./course serve
// starts on this machine (JAX is installed there). thebe, kept in _static/thebe/,
// does the work; this file finds the server, marks the cells for thebe, and says
// how to start a server when none answers.
//
// The server is http://localhost:8888 unless the page was opened with
// ?jupyter=http://localhost:PORT (or 127.0.0.1, or [::1]): only a server on this
// machine is accepted, since the page hands it the token and shows what it sends back.
// The token is in the address ./course serve prints, after "#token=": a browser sends
// no fragment to the book's server. This tab keeps the server and its token in
// sessionStorage, and the token leaves the visible address as soon as the page reads it.
// The chapters' "in JupyterLab" links to their exercise notebooks follow the same server.
(function () {
  "use strict";
  const DEFAULT_SERVER = "http://localhost:8888";
  const CONNECTION_KEY = "pytrees-hands-on:jupyter"; // {server, token} as JSON
  const LOCAL_HOSTS = ["localhost", "127.0.0.1", "[::1]"];
  let started = false;
  // This page's server and token, or the ?jupyter= value it refused (see remember()).
  let connection = { server: DEFAULT_SERVER, token: "" };
  let refused = null;

  // "http://host:port" for a Jupyter server on this machine, or null for any other address.
  function localServer(text) {
    let url;
    try {
      url = new URL(text);
    } catch (error) {
      return null;
    }
    const local =
      url.protocol === "http:" &&
      LOCAL_HOSTS.includes(url.hostname) &&
      url.port !== "" &&
      url.username === "" &&
      url.password === "" &&
      url.pathname === "/" &&
      url.search === "" &&
      url.hash === "";
    return local ? "http://" + url.host : null;
  }

  function validToken(token) {
    return typeof token === "string" && /^[A-Za-z0-9_.~-]{1,200}$/.test(token);
  }

  // What this tab kept, if it is still acceptable.
  function kept() {
    try {
      const value = JSON.parse(window.sessionStorage.getItem(CONNECTION_KEY) || "null");
      if (!value || !localServer(value.server)) return null;
      const token = validToken(value.token) ? value.token : "";
      return { server: localServer(value.server), token };
    } catch (error) {
      return null; // storage disabled, or not ours: start afresh
    }
  }

  function keep(value) {
    try {
      window.sessionStorage.setItem(CONNECTION_KEY, JSON.stringify(value));
    } catch (error) {
      /* storage may be disabled: this page still has the server and token */
    }
  }

  // The address's #token=, taken out of the visible address (and so out of the history,
  // bookmarks and copied links) before anything else on the page runs.
  function takeTokenFromAddress() {
    const token = new URLSearchParams(window.location.hash.slice(1)).get("token");
    if (token === null) return null;
    const { pathname, search } = window.location;
    window.history.replaceState(window.history.state, "", pathname + search);
    return validToken(token) ? token : null;
  }

  // Read on every page, so the tab keeps the server it was pointed at from page to page.
  // A token belongs to the server it came with: pointed at another server, the tab
  // forgets it rather than send it there.
  function remember() {
    const token = takeTokenFromAddress();
    const asked = new URLSearchParams(window.location.search).get("jupyter");
    const before = kept();
    let server = before ? before.server : DEFAULT_SERVER;
    if (asked !== null) {
      server = localServer(asked);
      if (server === null) {
        refused = asked;
        return;
      }
    }
    const sameServer = before && before.server === server;
    connection = { server, token: token || (sameServer ? before.token : "") };
    keep(connection);
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

  function authorization(token) {
    return token ? { Authorization: "token " + token } : {};
  }

  async function answers(server, token) {
    try {
      const response = await fetch(server + "/api/status", {
        cache: "no-store",
        headers: authorization(token),
      });
      return response.ok;
    } catch (error) {
      return false; // nothing listening, or a server that does not accept this page or token
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

  function options(server, token) {
    // Sphinx declares DOCUMENTATION_OPTIONS with const: a global, but not on window.
    const page =
      (typeof DOCUMENTATION_OPTIONS !== "undefined" && DOCUMENTATION_OPTIONS.pagename) || "book";
    return {
      useBinder: false,
      useJupyterLite: false,
      requestKernel: false, // startKernel() asks for it, once outputs are untrusted
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
        token: token, // sent in an Authorization header, which needs no XSRF cookie
        appendToken: true, // and in the websockets' addresses, which take no headers
      },
      // A notebook path beside the chapter's source, so the kernel runs in book/.
      kernelOptions: { kernelName: "python3", path: page + ".ipynb" },
      // One editor theme whose colours a11y-contrast.css sets for each scheme, so the
      // editor follows the page's scheme when the reader switches it; the label names
      // the editor's text box.
      codeMirrorConfig: { theme: "default", mode: "python", screenReaderLabel: "Code" },
    };
  }

  const NO_SERVER =
    "<p><strong>Live code needs the course's Jupyter server, and none at " +
    "<code>{server}</code> let this page in.</strong></p>" +
    "<p>In a terminal, in the course folder, run <code>./course serve</code>; it serves " +
    "this book on <code>http://localhost:8000</code> with the server next to it. Then open " +
    "the book at the address it prints (that address carries the server's key, new at " +
    "each start) and choose Live Code again. A JupyterLab started another way does not " +
    "accept this page. To read the chapter as a notebook instead, use Binder in the " +
    "launch menu.</p>";

  const REFUSED =
    "<p><strong>Live code refused the server this page's address names, " +
    "<code>{server}</code>: it runs only on a Jupyter server on this machine</strong> " +
    "(<code>?jupyter=http://localhost:PORT</code> or <code>http://127.0.0.1:PORT</code>).</p>" +
    "<p>A link that names another server could run that server's code in this page. " +
    "Open the book at the address <code>./course serve</code> printed instead.</p>";

  // The page's kernel goes when the page does, rather than idling in the learner's
  // JupyterLab; keepalive lets the request outlive the page.
  function shutDownOnLeaving(server, token) {
    window.addEventListener("pagehide", function (event) {
      const session = window.thebe && window.thebe.session;
      if (event.persisted || !session) return;
      fetch(server + "/api/sessions/" + encodeURIComponent(session.id), {
        method: "DELETE",
        headers: authorization(token),
        keepalive: true,
      }).catch(() => {});
    });
  }

  // thebe 0.9.3 makes every cell's output model trusted (thebe-core's PassiveCellRenderer:
  // new OutputAreaModel({ trusted: true })), and a trusted HTML output's <script> runs in
  // this page, which holds the server's token. JupyterLab's own switch turns that off: an
  // untrusted model renders HTML sanitised, runs no script, and never picks JavaScript,
  // and an untrusted MimeModel does the same for the outputs of widgets, which thebe also
  // makes trusted (ipywidgets' Output). This runs before any kernel exists; if thebe no
  // longer has these parts, it throws, and no kernel is started.
  function untrustOutputs(notebook) {
    notebook.cells.forEach(function (cell) {
      if (cell.kind !== "code") return;
      if (!cell.model || !("trusted" in cell.model)) throw new Error("thebe's cells changed");
      cell.model.trusted = false;
    });
    const rendermime = notebook.rendermime;
    const createRenderer = rendermime.createRenderer.bind(rendermime);
    rendermime.createRenderer = function (mimeType) {
      const renderer = createRenderer(mimeType);
      const renderModel = renderer.renderModel.bind(renderer);
      renderer.renderModel = (model) =>
        renderModel(Object.create(model, { trusted: { value: false } }));
      return renderer;
    };
  }

  // The end of thebe's bootstrap() with requestKernel: a session for the page's kernel.
  async function startKernel(server) {
    await server.ready;
    const notebook = window.thebe.notebook;
    const session = await server.startNewSession(notebook.rendermime);
    if (session) notebook.attachSession(session);
    window.thebe.session = session || undefined;
  }

  // thebe's editors and buttons for a keyboard and a screen reader: each editor is named
  // and says how to leave it (Tab indents in it; thebe's Escape leaves it, and Tab then
  // goes on), and the buttons are the theme's.
  const KEYS_HELP = "pt-live-code-keys";
  function fitCellsToTheKeyboard() {
    document.querySelectorAll(".thebe-cell").forEach(function (cell, index) {
      const editor = cell.querySelector(".CodeMirror");
      if (editor && editor.CodeMirror) {
        const input = editor.CodeMirror.getInputField();
        input.setAttribute("aria-label", "Code of example " + (index + 1));
        input.setAttribute("aria-describedby", KEYS_HELP);
      }
      cell.querySelectorAll(".thebe-button").forEach(function (button) {
        button.type = "button";
        button.classList.add("sd-btn", "sd-btn-outline-primary");
      });
    });
  }

  async function startLiveCode() {
    if (refused !== null) {
      say("refused", REFUSED.replace("{server}", escaped(refused)));
      return;
    }
    if (started) return;
    const { server, token } = connection;
    say("connecting", "<p>Connecting to the Jupyter server at <code>" + escaped(server) + "</code>…</p>");
    if (!(await answers(server, token))) {
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
      const booted = await window.thebe.bootstrap(options(server, token));
      untrustOutputs(booted.notebook);
      await startKernel(booted.server);
      shutDownOnLeaving(server, token);
      say(
        "ready",
        "<p><strong>Live code is on.</strong> Edit any example and press its run button " +
          "(or Shift+Enter in it). The cells share one Python kernel, so run the first cell " +
          "first, as the chapter does.</p>" +
          '<p id="' + KEYS_HELP + '">In an example, Tab indents; press Escape, then Tab, ' +
          "to move on to its buttons.</p>",
      );
      fitCellsToTheKeyboard();
    } catch (error) {
      say(
        "failed",
        "<p><strong>Live code could not start:</strong> " + escaped(String(error)) +
          ". Reload the page to try again.</p>",
      );
    }
  }

  // The chapters link their exercise notebook on the default server; on this tab's
  // server instead (the one Live Code uses), they open the JupyterLab that serves it.
  function pointLabLinks() {
    if (connection.server === DEFAULT_SERVER) return;
    const links = document.querySelectorAll('a[href^="' + DEFAULT_SERVER + '/lab/"]');
    for (const link of links) {
      link.href = connection.server + link.getAttribute("href").slice(DEFAULT_SERVER.length);
    }
  }

  remember();
  // The launch menu's button calls initThebeSBT(); this takes its place.
  window.initThebeSBT = startLiveCode;
  document.addEventListener("DOMContentLoaded", function () {
    window.initThebeSBT = startLiveCode;
    pointLabLinks();
  });
})();
