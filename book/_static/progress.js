// Progress the learner can see, kept on their own computer with no account.
// On every page: a page counts as read once its end has been on screen (localStorage).
// On the progress page (book/progress.md), it fills in the table that the book's
// extension wrote (booktools/progress_page.py): pages read, the questions answered
// as quiz.js remembers them, and the exercise functions that passed their checks,
// as the server of ./course serve reports them at progress.json.
(function () {
  "use strict";
  const PREFIX = "pytrees-hands-on:";
  const FUNCTION_STATES = {
    passed: ["✓", "passes its visible tests"],
    failing: ["✗", "did not pass when last checked"],
    "not-started": ["·", "not started when last checked"],
  };
  const NOT_CHECKED = ["·", "not checked yet"];

  function stored(name) {
    try {
      return window.localStorage.getItem(PREFIX + name);
    } catch (error) {
      return null; // storage may be disabled
    }
  }

  function store(name, value) {
    try {
      window.localStorage.setItem(PREFIX + name, value);
    } catch (error) {
      /* storage may be disabled */
    }
  }

  // Sphinx declares DOCUMENTATION_OPTIONS with const: a global, but not on window.
  function pageName() {
    return typeof DOCUMENTATION_OPTIONS !== "undefined" && DOCUMENTATION_OPTIONS.pagename
      ? DOCUMENTATION_OPTIONS.pagename
      : null;
  }

  function watchForTheEnd() {
    const page = pageName();
    const end = document.querySelector("footer.prev-next-footer");
    if (!page || !end || !("IntersectionObserver" in window)) return;
    const observer = new IntersectionObserver(function (entries) {
      if (entries.some((entry) => entry.isIntersecting)) {
        store("read:" + page, new Date().toISOString());
        observer.disconnect();
      }
    });
    observer.observe(end);
  }

  function words(text) {
    return text ? text.split(" ") : [];
  }

  function questionsText(keys) {
    if (!keys.length) return "—";
    const answered = keys.filter((key) => stored("quiz:" + key) !== null);
    const right = keys.filter((key) => stored("quiz-right:" + key) === "true");
    let text = answered.length + " of " + keys.length;
    if (answered.length) text += " (" + right.length + " right)";
    return text;
  }

  function exerciseCell(cell, names, states) {
    cell.textContent = "";
    if (!names.length) {
      cell.textContent = "—";
      return 0;
    }
    if (states === null) {
      cell.textContent = names.length + " functions";
      return 0;
    }
    const passed = names.filter((name) => states[name] === "passed").length;
    const summary = document.createElement("span");
    summary.textContent = passed + " of " + names.length + " pass";
    const list = document.createElement("ul");
    list.className = "pt-progress-functions";
    names.forEach(function (name) {
      const [mark, meaning] = FUNCTION_STATES[states[name]] || NOT_CHECKED;
      const item = document.createElement("li");
      item.dataset.state = states[name] || "unchecked";
      item.title = name + " " + meaning;
      item.textContent = mark + " ";
      const code = document.createElement("code");
      code.textContent = name;
      item.appendChild(code);
      list.appendChild(item);
    });
    cell.append(summary, list);
    return passed;
  }

  async function exerciseStates() {
    const root = document.documentElement.dataset.content_root || "./";
    try {
      const response = await fetch(new URL(root + "progress.json", window.location.href), {
        cache: "no-store",
      });
      if (!response.ok) return null;
      const data = await response.json();
      // The built book's own progress.json holds null: only ./course serve has a record.
      return data && data.functions && typeof data.functions === "object" ? data.functions : null;
    } catch (error) {
      return null; // a copy of the book opened from disk
    }
  }

  async function fillProgress(table) {
    const box = table.closest(".pt-progress");
    const states = await exerciseStates();
    const totals = { pages: 0, read: 0, questions: 0, answered: 0, functions: 0, passed: 0 };
    table.querySelectorAll("tbody tr").forEach(function (row) {
      const read = stored("read:" + row.dataset.page) !== null;
      row.querySelector(".pt-progress-read").textContent = read ? "✓ read" : "not yet";
      row.classList.toggle("pt-progress-done", read);
      const questions = words(row.dataset.questions);
      row.querySelector(".pt-progress-questions").textContent = questionsText(questions);
      const functions = words(row.dataset.functions);
      const passed = exerciseCell(row.querySelector(".pt-progress-exercise"), functions, states);
      totals.pages += 1;
      totals.read += read ? 1 : 0;
      totals.questions += questions.length;
      totals.answered += questions.filter((key) => stored("quiz:" + key) !== null).length;
      totals.functions += functions.length;
      totals.passed += passed;
    });
    let summary =
      "Read " + totals.read + " of " + totals.pages + " chapters; answered " +
      totals.answered + " of " + totals.questions + " questions";
    summary += states === null
      ? "."
      : "; " + totals.passed + " of " + totals.functions + " exercise functions pass.";
    box.querySelector(".pt-progress-summary").textContent = summary;
    // Fixed markup, no data in it.
    box.querySelector(".pt-progress-note").innerHTML = states === null
      ? "Exercise results show here when <code>./course serve</code> serves this book. " +
        "In a terminal, <code>python -m autograder status</code> shows them."
      : "Exercise results are as your last check of each function recorded them; " +
        "<code>python -m autograder status</code> shows the same in a terminal.";
  }

  function start() {
    watchForTheEnd();
    const table = document.querySelector(".pt-progress-table");
    if (table) fillProgress(table);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
