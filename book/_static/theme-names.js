// Controls of the theme and of MyST-NB whose accessible name is not their visible text,
// which speech input needs to find them by ("label in name", WCAG 2.5.3):
// - the search box is named "Search" while it shows "Search Ctrl+K": without the label,
//   its name is what it shows;
// - a hidden output's toggle is named "Toggle hidden content" while it shows
//   "Show code cell output": without the label, its name is what it shows;
// - the colour-mode button's icons carry titles ("Light", "Dark") that its name,
//   "Color mode", does not hold: the button's tooltip already names the mode switch.
(function () {
  "use strict";

  function nameByVisibleText() {
    const labelled = '.search-button-field[aria-label], summary[aria-label="Toggle hidden content"]';
    document.querySelectorAll(labelled).forEach((control) => {
      control.removeAttribute("aria-label");
    });
    document.querySelectorAll(".theme-switch-button .theme-switch").forEach((icon) => {
      icon.removeAttribute("title");
      icon.querySelectorAll("title").forEach((title) => title.remove());
      icon.removeAttribute("aria-labelledby");
      icon.setAttribute("aria-hidden", "true");
    });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", nameByVisibleText);
  } else {
    nameByVisibleText();
  }
})();
