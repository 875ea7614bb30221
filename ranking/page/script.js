// Sorting and filtering of the entries table, kept in the address. The
// page is complete without this script; it only reorders and hides rows
// that are already there, and never turns text into markup.
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

  var filters = document.getElementById('filters');
  var model = document.getElementById('f-model');
  var bench = document.getElementById('f-bench');
  var track = document.getElementById('f-track');
  var open = document.getElementById('f-open');
  var reset = document.getElementById('f-reset');
  var count = document.getElementById('count');
  var noMatch = document.getElementById('no-match');
  var sortNote = document.getElementById('sort-note');

  // Benchmarks in the page's order: a column that only means something
  // within a benchmark (score, rank, group) sorts inside each, in turn.
  var benchOrder = {};
  Array.prototype.forEach.call(bench.options, function (o, i) {
    benchOrder[o.value] = i;
  });

  // The current sort: a column name and a direction, or none.
  var sorted = { col: '', dir: '' };

  function sortKey(row, col, numeric) {
    var cell = row.cells[col];
    var v = cell.hasAttribute('data-sort') ? cell.getAttribute('data-sort') : cell.textContent;
    v = v.trim();
    if (v === '') {
      return null;
    }
    return numeric ? Number(v) : v;
  }

  function colIndex(name) {
    for (var i = 0; i < heads.length; i++) {
      if (heads[i].getAttribute('data-col') === name) {
        return i;
      }
    }
    return -1;
  }

  function sortBy(name, dir) {
    var col = colIndex(name);
    if (col < 0 || (dir !== 'ascending' && dir !== 'descending')) {
      return false;
    }
    var th = heads[col];
    var numeric = th.getAttribute('data-type') === 'num';
    var within = th.getAttribute('data-within') === 'bench';
    var sign = dir === 'ascending' ? 1 : -1;
    var keyed = rows.map(function (r, i) {
      return { row: r, i: i, k: sortKey(r, col, numeric), b: benchOrder[r.getAttribute('data-bench')] || 0 };
    });
    keyed.sort(function (a, b) {
      if (within && a.b !== b.b) {
        return a.b - b.b;
      }
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
    sorted = { col: name, dir: dir };
    var label = th.querySelector('button').firstChild.textContent.trim();
    sortNote.textContent = 'Sorted by ' + label + ', ' + dir +
      (within ? ', within each benchmark: scores on different scales are not compared.' : '.');
    sortNote.hidden = false;
    return true;
  }

  heads.forEach(function (th) {
    var button = th.querySelector('button');
    if (button) {
      button.addEventListener('click', function () {
        var name = th.getAttribute('data-col');
        // The first click sorts the way a reader of that column looks
        // first (best score first); the next one turns it round.
        var current = th.getAttribute('aria-sort');
        var dir = th.getAttribute('data-first') || 'ascending';
        if (current) {
          dir = current === 'ascending' ? 'descending' : 'ascending';
        }
        sortBy(name, dir);
        save();
      });
    }
  });

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

  // The state lives in the fragment, as #all?bench=…&track=…&open=…&model=…&sort=…&dir=…,
  // so that a link opens the table as it was; an entry's anchor is left alone.
  var statePrefix = '#all?';
  var fields = { model: model, bench: bench, track: track, open: open };

  function save() {
    var p = new URLSearchParams();
    Object.keys(fields).forEach(function (k) {
      var v = fields[k].value.trim();
      if (v !== '') {
        p.set(k, v);
      }
    });
    if (sorted.col) {
      p.set('sort', sorted.col);
      p.set('dir', sorted.dir === 'descending' ? 'desc' : 'asc');
    }
    var s = p.toString();
    var hash = s === '' ? '#all' : statePrefix + s;
    if (location.hash === hash || (s === '' && location.hash.indexOf(statePrefix) !== 0)) {
      return;
    }
    history.replaceState(null, '', hash);
  }

  function restore() {
    if (location.hash.indexOf(statePrefix) !== 0) {
      return false;
    }
    var p = new URLSearchParams(location.hash.slice(statePrefix.length));
    Object.keys(fields).forEach(function (k) {
      var el = fields[k];
      var v = p.get(k) || '';
      if (el.tagName === 'SELECT' && !Array.prototype.some.call(el.options, function (o) { return o.value === v; })) {
        v = '';
      }
      el.value = v;
    });
    if (p.get('sort')) {
      sortBy(p.get('sort'), p.get('dir') === 'desc' ? 'descending' : 'ascending');
    }
    apply();
    return true;
  }

  [model, bench, track, open].forEach(function (el) {
    el.addEventListener('input', function () { apply(); save(); });
    el.addEventListener('change', function () { apply(); save(); });
  });
  reset.addEventListener('click', function () {
    model.value = '';
    bench.value = '';
    track.value = '';
    open.value = '';
    apply();
    save();
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
  window.addEventListener('hashchange', function () {
    if (!restore()) {
      openTarget();
    }
  });
  if (restore()) {
    document.getElementById('all').scrollIntoView();
  } else {
    openTarget();
  }

  // Printing shows every entry's breakdown: where the stylesheet cannot
  // open closed details, they are opened for the print and closed again.
  var opened = [];
  window.addEventListener('beforeprint', function () {
    opened = Array.prototype.filter.call(document.querySelectorAll('details'), function (d) {
      return !d.open;
    });
    opened.forEach(function (d) { d.open = true; });
  });
  window.addEventListener('afterprint', function () {
    opened.forEach(function (d) { d.open = false; });
    opened = [];
  });
})();
