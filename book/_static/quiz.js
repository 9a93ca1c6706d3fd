// Questions that answer in the page (markup written by booktools/quiz.py).
// A chosen answer is kept in localStorage, so it is still shown on the next visit,
// and so is whether it was right: the progress page (progress.js) counts both.
(function () {
  "use strict";
  const STORE = "pytrees-hands-on:quiz:"; // the chosen answer, by question key
  const VERDICT = "pytrees-hands-on:quiz-right:"; // "true" or "false", by question key

  function remembered(key) {
    try {
      return window.localStorage.getItem(STORE + key);
    } catch (error) {
      return null; // storage may be disabled; the quiz still works for this visit
    }
  }

  function store(name, value) {
    try {
      if (value === null) window.localStorage.removeItem(name);
      else window.localStorage.setItem(name, value);
    } catch (error) {
      /* storage may be disabled */
    }
  }

  function remember(key, choice, right) {
    store(STORE + key, choice);
    store(VERDICT + key, choice === null ? null : String(right));
  }

  function isRight(quiz, choice) {
    return String(choice) === quiz.dataset.answer;
  }

  function show(quiz, choice) {
    const answer = quiz.dataset.answer;
    const right = isRight(quiz, choice);
    quiz.querySelectorAll(".pt-quiz-choice").forEach(function (button) {
      const picked = button.dataset.choice === String(choice);
      button.classList.toggle("pt-quiz-picked", picked);
      button.classList.toggle("pt-quiz-right", right && picked);
      button.classList.toggle("pt-quiz-wrong", !right && picked);
      button.setAttribute("aria-pressed", picked ? "true" : "false");
    });
    const feedback = quiz.querySelector(".pt-quiz-feedback");
    feedback.hidden = false;
    const correct = quiz.querySelector('.pt-quiz-choice[data-choice="' + answer + '"]');
    quiz.querySelector(".pt-quiz-verdict").textContent = right
      ? "Right."
      : "Not quite. The answer is " + correct.textContent + ".";
    quiz.classList.toggle("pt-quiz-solved", right);
  }

  function reset(quiz) {
    quiz.querySelectorAll(".pt-quiz-choice").forEach(function (button) {
      button.classList.remove("pt-quiz-picked", "pt-quiz-right", "pt-quiz-wrong");
      button.removeAttribute("aria-pressed");
    });
    quiz.querySelector(".pt-quiz-feedback").hidden = true;
    quiz.classList.remove("pt-quiz-solved");
  }

  function setUp(quiz) {
    const key = quiz.dataset.key;
    quiz.querySelectorAll(".pt-quiz-choice").forEach(function (button) {
      button.addEventListener("click", function () {
        const choice = button.dataset.choice;
        remember(key, choice, isRight(quiz, choice));
        show(quiz, choice);
      });
    });
    quiz.querySelector(".pt-quiz-retry").addEventListener("click", function () {
      remember(key, null);
      reset(quiz);
      // The button pressed is hidden with the answer: the focus goes back to the choices
      // rather than to the page's top.
      quiz.querySelector(".pt-quiz-choice").focus();
    });
    const earlier = remembered(key);
    if (earlier !== null) {
      remember(key, earlier, isRight(quiz, earlier)); // answers kept before verdicts were
      show(quiz, earlier);
    }
  }

  function start() {
    document.querySelectorAll(".pt-quiz").forEach(setUp);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
