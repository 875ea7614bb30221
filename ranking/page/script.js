// Sorting and filtering of the entries table. The page is complete without
// this script; it only reorders and hides rows that are already there, and
// never turns text into markup.
(function () {
  'use strict';
  var table = document.getElementById('entries');
  if (!table) {
    return;
  }
  var body = table.tBodies[0];
  // The board's own order, used to break ties so that sorting is stable.
  var rows = Array.prototype.slice.call(body.rows);
  var heads = Array.prototype.slice.call(table.tHead.rows[0].cells);
  var collator = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });

  function sortKey(row, col, numeric) {
    var cell = row.cells[col];
    var v = cell.hasAttribute('data-sort') ? cell.getAttribute('data-sort') : cell.textContent;
    v = v.trim();
    if (v === '') {
      return null;
    }
    return numeric ? Number(v) : v;
  }

  function sortBy(col) {
    var th = heads[col];
    var numeric = th.getAttribute('data-type') === 'num';
    var dir = th.getAttribute('aria-sort') === 'ascending' ? 'descending' : 'ascending';
    var sign = dir === 'ascending' ? 1 : -1;
    var keyed = rows.map(function (r, i) {
      return { row: r, i: i, k: sortKey(r, col, numeric) };
    });
    keyed.sort(function (a, b) {
      // Missing values (no price, say) go last in either direction.
      if (a.k === null || b.k === null) {
        if (a.k === b.k) {
          return a.i - b.i;
        }
        return a.k === null ? 1 : -1;
      }
      var c = numeric ? a.k - b.k : collator.compare(a.k, b.k);
      return c !== 0 ? sign * c : a.i - b.i;
    });
    var frag = document.createDocumentFragment();
    keyed.forEach(function (x) {
      frag.appendChild(x.row);
    });
    body.appendChild(frag);
    heads.forEach(function (h) {
      h.removeAttribute('aria-sort');
    });
    th.setAttribute('aria-sort', dir);
  }

  heads.forEach(function (th, col) {
    var button = th.querySelector('button');
    if (button) {
      button.addEventListener('click', function () {
        sortBy(col);
      });
    }
  });

  var filters = document.getElementById('filters');
  var model = document.getElementById('f-model');
  var bench = document.getElementById('f-bench');
  var track = document.getElementById('f-track');
  var open = document.getElementById('f-open');
  var reset = document.getElementById('f-reset');
  var count = document.getElementById('count');
  var noMatch = document.getElementById('no-match');

  function apply() {
    var text = model.value.trim().toLowerCase();
    var shown = 0;
    rows.forEach(function (r) {
      var ok = (text === '' || r.getAttribute('data-model').indexOf(text) >= 0) &&
        (bench.value === '' || r.getAttribute('data-bench') === bench.value) &&
        (track.value === '' || r.getAttribute('data-track') === track.value) &&
        (open.value === '' || r.getAttribute('data-open') === open.value);
      r.hidden = !ok;
      if (ok) {
        shown++;
      }
    });
    var noun = rows.length === 1 ? ' entry' : ' entries';
    count.textContent = shown === rows.length ? rows.length + noun : shown + ' of ' + rows.length + noun + ' shown';
    noMatch.hidden = shown > 0;
  }

  [model, bench, track, open].forEach(function (el) {
    el.addEventListener('input', apply);
    el.addEventListener('change', apply);
  });
  reset.addEventListener('click', function () {
    model.value = '';
    bench.value = '';
    track.value = '';
    open.value = '';
    apply();
  });
  filters.hidden = false;
  apply();

  // A link to an entry opens its details.
  function openTarget() {
    var id = location.hash.slice(1);
    if (!id) {
      return;
    }
    var el = document.getElementById(id);
    if (el && el.tagName === 'DETAILS') {
      el.open = true;
    }
  }
  window.addEventListener('hashchange', openTarget);
  openTarget();
})();
