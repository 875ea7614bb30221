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
  var tabList = document.getElementById('bench-tabs');
  var tabs = tabList ? Array.prototype.slice.call(tabList.querySelectorAll('[role="tab"]')) : [];

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
    // One view per benchmark: its tab is selected, and the sections of
    // the other benchmarks step aside.
    tabs.forEach(function (tab) {
      tab.setAttribute('aria-selected', String(tab.getAttribute('data-bench') === bench.value));
    });
    Array.prototype.forEach.call(document.querySelectorAll('section.bench[data-bench]'), function (sec) {
      sec.hidden = bench.value !== '' && sec.getAttribute('data-bench') !== bench.value;
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
  tabs.forEach(function (tab) {
    tab.addEventListener('click', function () {
      bench.value = tab.getAttribute('data-bench');
      apply();
      save();
    });
  });
  if (tabList) {
    tabList.hidden = false;
  }
  // The optional columns: a group shows when its box is ticked.
  Array.prototype.forEach.call(document.querySelectorAll('#columns input[data-group]'), function (box) {
    box.addEventListener('change', function () {
      table.classList.toggle('show-' + box.getAttribute('data-group'), box.checked);
    });
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

// The instance explorer: a model's answers question by question, and a
// question's answers model by model, read from the files beside the page
// (explore/) only when a reader asks for them. Every text from those files
// is set as text, never as markup.
(function () {
  'use strict';
  var box = document.getElementById('explorer');
  if (!box || !window.fetch) {
    return;
  }
  var heading = document.getElementById('explorer-h');
  var status = document.getElementById('explorer-status');
  var list = document.getElementById('explorer-list');
  var filter = document.getElementById('explorer-filter');
  var show = document.getElementById('x-show');
  var loaded = {};

  function load(file) {
    if (!loaded[file]) {
      loaded[file] = fetch(file, { credentials: 'same-origin' }).then(function (r) {
        if (!r.ok) {
          throw new Error(r.status + ' ' + r.statusText);
        }
        return r.json();
      });
      loaded[file].catch(function () { delete loaded[file]; });
    }
    return loaded[file];
  }
  function questionsOf(file) {
    return file.slice(0, file.lastIndexOf('/') + 1) + 'questions.json';
  }
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) {
      e.className = cls;
    }
    if (text !== undefined && text !== null) {
      e.textContent = String(text);
    }
    return e;
  }
  function mark(parent, text, kind) {
    parent.appendChild(el('span', 'x-mark' + (kind ? ' x-' + kind : ''), text));
  }
  function num(v) {
    return Math.round(v * 100) / 100;
  }
  function begin(title) {
    heading.textContent = title;
    status.textContent = 'Loading…';
    list.textContent = '';
    filter.hidden = true;
    box.hidden = false;
    box.scrollIntoView();
  }
  function failed(file, err) {
    status.textContent = 'The answers could not be loaded from ' + file + ' (' + err.message +
      '). They are files beside the page: open it from the web server that publishes it.';
  }
  function applyFilter() {
    Array.prototype.forEach.call(list.children, function (li) {
      var v = show.value;
      li.hidden = (v === 'wrong' && li.getAttribute('data-wrong') !== 'true') ||
        (v === 'flagged' && li.getAttribute('data-flagged') !== 'true');
    });
  }
  show.addEventListener('change', applyFilter);
  document.getElementById('explorer-close').addEventListener('click', function () {
    box.hidden = true;
    if (/^#(answers|question)=/.test(location.hash)) {
      history.replaceState(null, '', '#all');
    }
  });
  // What the explorer shows is kept in the address, #answers=FILE&q=ID or
  // #question=FILE&q=ID, so that a link opens the same view; a file is
  // only ever one of the explorer's own.
  function remember(kind, file, id) {
    var p = new URLSearchParams();
    p.set(kind, file);
    if (id) {
      p.set('q', id);
    }
    history.replaceState(null, '', '#' + p.toString());
  }
  function ownFile(file) {
    return typeof file === 'string' && /^explore\/[a-z0-9_.-]+\/[a-z0-9_.-]+\.json$/.test(file) && file.indexOf('..') < 0;
  }

  function openModel(file, focus) {
    begin('Answers');
    remember('answers', file, focus);
    Promise.all([load(file), load(questionsOf(file))]).then(function (res) {
      var m = res[0], idx = res[1];
      var byID = {};
      idx.questions.forEach(function (q) { byID[q.id] = q; });
      heading.textContent = 'Answers of ' + m.model + (m.harness ? ' + ' + m.harness : '') + ' on ' + m.benchmark;
      var wrong = 0, flagged = 0, target = null;
      m.answers.forEach(function (a) {
        var li = el('li', 'x-answer');
        li.setAttribute('data-id', a.id);
        var head = el('div', 'x-head');
        head.appendChild(el('span', 'x-id', a.id));
        var isWrong, isFlagged;
        if (m.kind === 'mcq') {
          isWrong = !a.correct;
          isFlagged = !!(a.unverifiable || a.disputed);
          mark(head, a.correct ? 'correct' : 'wrong', a.correct ? 'ok' : '');
          mark(head, 'answered ' + (a.answer || 'none'));
          mark(head, 'key ' + a.key);
          mark(head, 'read ' + (a.read || 'nothing') + (a.pattern ? ' (' + a.pattern + ')' : ''));
          if (a.unverifiable) {
            mark(head, 'unverifiable: stored cut short', 'flag');
          }
          if (a.disputed) {
            mark(head, 'disputed: the letter read is not the answer', 'flag');
          }
        } else {
          var max = idx.max_points;
          isWrong = a.points === undefined || a.points === null || a.points < max;
          isFlagged = !!a.adjudicate || a.points === undefined || a.points === null;
          mark(head, a.points === undefined || a.points === null ? 'unscored' : num(a.points) + ' / ' + max + ' points', a.points === max ? 'ok' : '');
          if (a.gate_passed !== undefined && a.gate_passed !== null) {
            mark(head, a.gate_passed ? 'gate passed' : 'gate failed', a.gate_passed ? '' : 'flag');
          }
          if (a.adjudicate) {
            mark(head, 'adjudicated', 'flag');
          }
        }
        if (a.truncated && !a.unverifiable) {
          mark(head, 'stored cut short');
        }
        var q = byID[a.id];
        var qb = el('button', 'x-question', 'How every model answered');
        qb.type = 'button';
        qb.addEventListener('click', function () { openQuestion(questionsOf(file), a.id); });
        head.appendChild(qb);
        li.appendChild(head);
        if (q) {
          li.appendChild(el('p', 'x-q', q.text));
        }
        li.appendChild(el('pre', 'x-response', a.response || '(no response)'));
        if (a.answer_clean) {
          li.appendChild(el('p', 'x-q', 'Graded as: ' + a.answer_clean));
        }
        if (a.reason) {
          li.appendChild(el('p', 'x-q', 'Judge: ' + a.reason));
        }
        if (a.adjudication_note) {
          li.appendChild(el('p', 'x-q', 'Adjudication: ' + a.adjudication_note));
        }
        if (a.components && a.components.length) {
          var t = el('table', 'small');
          var hr = el('tr');
          ['Component', 'Awarded', 'Of', 'Reason'].forEach(function (h) { hr.appendChild(el('th', '', h)); });
          t.appendChild(el('thead')).appendChild(hr);
          var tb = t.appendChild(el('tbody'));
          a.components.forEach(function (c) {
            var tr = el('tr');
            tr.appendChild(el('td', '', c.id));
            tr.appendChild(el('td', 'num', c.awarded === null ? '–' : num(c.awarded)));
            tr.appendChild(el('td', 'num', c.maximum === null ? '–' : num(c.maximum)));
            tr.appendChild(el('td', '', c.reason || ''));
            tb.appendChild(tr);
          });
          li.appendChild(t);
        }
        li.setAttribute('data-wrong', String(isWrong));
        li.setAttribute('data-flagged', String(isFlagged));
        wrong += isWrong ? 1 : 0;
        flagged += isFlagged ? 1 : 0;
        if (a.id === focus) {
          target = li;
        }
        list.appendChild(li);
      });
      status.textContent = m.answers.length + ' answers: ' + wrong + (m.kind === 'mcq' ? ' wrong' : ' below full marks or unscored') +
        ', ' + flagged + ' flagged. Submission ' + m.path + '.';
      filter.hidden = false;
      applyFilter();
      (target || box).scrollIntoView();
    }).catch(function (err) { failed(file, err); });
  }

  function openQuestion(file, id) {
    begin('Question ' + id);
    remember('question', file, id);
    load(file).then(function (idx) {
      var qi = -1;
      idx.questions.forEach(function (q, i) { if (q.id === id) { qi = i; } });
      if (qi < 0) {
        status.textContent = 'No question ' + id + ' in ' + file + '.';
        return;
      }
      var q = idx.questions[qi];
      heading.textContent = 'Question ' + q.id + ' of ' + idx.benchmark;
      var intro = el('li', 'x-answer x-question-text');
      intro.appendChild(el('p', 'x-q', q.text));
      if (q.choices) {
        var ol = el('ol', 'x-choices');
        q.choices.forEach(function (c, i) {
          var letter = 'ABCD'.charAt(i);
          ol.appendChild(el('li', letter === q.key ? 'x-ok' : '', letter + '. ' + c + (letter === q.key ? ' (key)' : '')));
        });
        intro.appendChild(ol);
      }
      list.appendChild(intro);
      var right = 0;
      idx.entries.forEach(function (e) {
        var li = el('li', 'x-answer x-entry');
        var head = el('div', 'x-head');
        var b = el('button', 'x-model', e.model + (e.harness ? ' + ' + e.harness : ''));
        b.type = 'button';
        b.addEventListener('click', function () { openModel(e.file, q.id); });
        head.appendChild(b);
        if (idx.kind === 'mcq') {
          var c = e.letters.charAt(qi);
          var letter = c === '-' ? '' : c.toUpperCase();
          var ok = letter === q.key;
          right += ok ? 1 : 0;
          mark(head, ok ? 'correct' : 'wrong', ok ? 'ok' : '');
          mark(head, 'answered ' + (letter || 'none'));
          if (c !== c.toUpperCase()) {
            mark(head, 'unverifiable: stored cut short', 'flag');
          }
        } else {
          var p = e.points[qi];
          right += p === idx.max_points ? 1 : 0;
          mark(head, p < 0 ? 'unscored' : num(p) + ' / ' + idx.max_points + ' points', p === idx.max_points ? 'ok' : (p < 0 ? 'flag' : ''));
        }
        li.appendChild(head);
        list.appendChild(li);
      });
      box.scrollIntoView();
      status.textContent = right + ' of ' + idx.entries.length + (idx.kind === 'mcq' ? ' entries answered it correctly.' : ' entries got full marks.') +
        ' Select a model to read its answer.';
    }).catch(function (err) { failed(file, err); });
  }

  function restoreView() {
    if (!/^#(answers|question)=/.test(location.hash)) {
      return;
    }
    var p = new URLSearchParams(location.hash.slice(1));
    if (ownFile(p.get('answers'))) {
      openModel(p.get('answers'), p.get('q') || '');
    } else if (ownFile(p.get('question')) && p.get('q')) {
      openQuestion(p.get('question'), p.get('q'));
    }
  }
  restoreView();
  // The links wait for this script: without it there is no explorer.
  Array.prototype.forEach.call(document.querySelectorAll('a.answers-link'), function (a) {
    a.hidden = false;
  });
  document.addEventListener('click', function (ev) {
    var a = ev.target.closest && ev.target.closest('a.answers-link');
    if (!a) {
      return;
    }
    ev.preventDefault();
    openModel(a.getAttribute('data-answers'));
  });
})();
