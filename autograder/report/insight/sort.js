// Sorts a table.sortable by the column whose header button is pressed: by each cell's
// data-sort where it has one (a number), else by its text. Pressing again reverses.
for (const table of document.querySelectorAll("table.sortable")) {
  const headers = Array.from(table.querySelectorAll("thead th"));
  headers.forEach((header, column) => {
    const button = header.querySelector("button");
    if (!button) return;
    button.addEventListener("click", () => {
      const ascending = header.getAttribute("aria-sort") !== "ascending";
      headers.forEach((other) => other.removeAttribute("aria-sort"));
      header.setAttribute("aria-sort", ascending ? "ascending" : "descending");
      const body = table.tBodies[0];
      const key = (row) => {
        const cell = row.cells[column];
        const value = cell.dataset.sort;
        return value === undefined ? cell.textContent.trim().toLowerCase() : Number(value);
      };
      const rows = Array.from(body.rows);
      rows.sort((a, b) => {
        const x = key(a);
        const y = key(b);
        const order = x < y ? -1 : x > y ? 1 : 0;
        return ascending ? order : -order;
      });
      body.append(...rows);
    });
  });
}
