// results/report.html's views (plot/report.py writes the data). The state (view and filters) lives in
// the URL's fragment: every change rewrites it, and a link with one opens that view.
(function () {
  'use strict';
  const D = JSON.parse(document.getElementById('report-data').textContent);
  const PLOT = 'shootout-report';
  const table = t => { const k = Object.keys(t); return t[k[0]].map((_, i) => Object.fromEntries(k.map(c => [c, t[c][i]]))); };
  const P = table(D.points), E = table(D.errors), C = table(D.compare);
  for (const e of E) if (e.rel_error === 'inf') e.rel_error = Infinity;  // an overflowed sum (JSON has no infinity)
  const VIEWS = [['speed', 'Speed against size'], ['error', 'Error against size'],
    ['accuracy', 'Accuracy against speed'], ['machines', 'Machine against machine'], ['table', 'Summary table']];
  const WORST = 'worst over inputs', BEST = 'fastest of each family', ALL = 'all reductions';
  // Which filters each view uses (all of them stay in the URL).
  const USES = {speed: ['machine', 'device', 'dtype', 'timing', 'backends'],
    error: ['machine', 'device', 'dtype', 'timing', 'backends', 'input'],
    accuracy: ['machine', 'device', 'dtype', 'timing', 'backends', 'input', 'n'],
    machines: ['machine', 'vs', 'device', 'dtype', 'timing', 'backends'],
    table: ['machine', 'device', 'dtype', 'timing']};
  const LABELS = {machine: 'machine', vs: 'against', device: 'device', dtype: 'element type', timing: 'timing',
    backends: 'backends', input: 'input', n: 'size'};
  const uniq = xs => [...new Set(xs)];
  const sortNum = xs => uniq(xs).sort((a, b) => a - b);
  const pow2 = n => { const k = Math.log2(n); return Number.isInteger(k) ? `2^${k}` : String(n); };
  const fmtBytes = b => { for (const [u, s] of [['GiB', 2 ** 30], ['MiB', 2 ** 20], ['KiB', 2 ** 10]]) if (b >= s) return `${+(b / s).toFixed(1)} ${u}`; return `${b} B`; };
  const fmtGbps = v => v == null ? '—' : v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2);
  const fmtErr = e => e == null ? 'nan' : e === 0 ? '0 (exact)' : e === Infinity ? 'inf (overflowed)' : e.toExponential(2);
  // A machine as '<label> — <model>': the model of `device`, else its CUDA GPU's, else its CPU's.
  const machineName = (m, device) => { const x = D.machines[m].models; const model = x[device] || x.cuda || x.cpu; return `${D.machines[m].label}${model ? ' — ' + model : ''}`; };
  // Ticks of a log axis at 1, 2, 5 (or finer over a narrow range) times powers of ten, written out in full.
  function logTicks(values) {
    const pos = values.filter(v => v > 0);
    if (!pos.length) return {};
    const lo = Math.min(...pos), hi = Math.max(...pos), decades = Math.log10(hi / lo);
    if (decades < 0.3) {  // a narrow range: evenly spaced round values
      const raw = (hi - lo || hi) / 5, mag = 10 ** Math.floor(Math.log10(raw));
      const step = [1, 2, 5, 10].map(m => m * mag).find(x => x >= raw);
      const vals = [];
      for (let v = Math.ceil(lo * 0.97 / step) * step; v <= hi * 1.03; v += step) vals.push(+v.toPrecision(6));
      return {tickvals: vals, ticktext: vals.map(v => String(v))};
    }
    const steps = decades > 2.5 ? [1] : decades > 1.5 ? [1, 2, 5] : decades > 0.6 ? [1, 1.5, 2, 3, 5, 7] : [1, 1.1, 1.2, 1.3, 1.5, 1.7, 2, 2.5, 3, 4, 5, 6, 7, 8, 9];
    const vals = [];
    for (let k = Math.floor(Math.log10(lo)) - 1; k <= Math.ceil(Math.log10(hi)) + 1; k++)
      for (const st of steps) { const v = st * 10 ** k; if (v >= lo / 1.3 && v <= hi * 1.3) vals.push(+v.toPrecision(3)); }
    return {tickvals: vals, ticktext: vals.map(v => String(v))};
  }
  const esc = s => String(s).replace(/[&<>"]/g, c => ({'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;'}[c]));

  let state = {};

  // The options of each filter under the current state, in the order the filters depend on each other.
  function options(key, s) {
    const on = P.filter(p => p.machine === s.machine && p.device === s.device);
    switch (key) {
      case 'view': return VIEWS.map(v => v[0]);
      case 'machine': return Object.keys(D.machines).filter(m => P.some(p => p.machine === m))
        .sort((a, b) => D.machines[a].label.localeCompare(D.machines[b].label));
      case 'device': return uniq(P.filter(p => p.machine === s.machine).map(p => p.device)).sort();
      case 'dtype': return uniq(on.map(p => p.dtype)).sort();
      case 'timing': return uniq(on.filter(p => p.dtype === s.dtype).map(p => p.timing)).sort();
      case 'backends': return [BEST, ALL, ...uniq(on.filter(p => p.dtype === s.dtype).map(p => p.series)).sort()];
      case 'input': return [WORST, ...uniq(E.filter(e => e.machine === s.machine && e.device === s.device && e.dtype === s.dtype && e.timing === s.timing).map(e => e.input)).sort()];
      case 'n': return sortNum(on.filter(p => p.dtype === s.dtype && p.timing === s.timing).map(p => p.n)).map(String);
      case 'vs': return uniq(C.filter(c => c.device === s.device && c.dtype === s.dtype && (c.a === s.machine || c.b === s.machine))
        .map(c => c.a === s.machine ? c.b : c.a)).sort();
    }
    return [];
  }
  const ORDER = ['view', 'machine', 'device', 'dtype', 'timing', 'backends', 'input', 'n', 'vs'];
  function preferred(key, opts) {
    const d = D.default;
    if (key === 'view') return 'speed';
    if (key === 'backends') return BEST;
    if (key === 'input') return opts.includes('uniform') ? 'uniform' : WORST;
    if (key === 'n') { const fit = opts.filter(n => +n <= 2 ** 24); return fit.length ? fit[fit.length - 1] : opts[0]; }
    if (key === 'timing' && opts.includes('batched')) return 'batched';
    return opts.includes(d[key]) ? d[key] : opts[0];
  }
  // Every value kept where it is an option, else the preferred one (a stale or hand-edited URL still opens).
  function settle(wanted) {
    const s = {};
    for (const key of ORDER) {
      const opts = options(key, s);
      s[key] = opts.includes(wanted[key]) ? wanted[key] : preferred(key, opts);
    }
    return s;
  }
  function fromUrl() { return Object.fromEntries(new URLSearchParams(location.hash.slice(1))); }
  function toUrl(s) {
    const q = new URLSearchParams(ORDER.filter(k => s[k] !== undefined).map(k => [k, s[k]])).toString();
    if (location.hash.slice(1) !== q) history.replaceState(null, '', '#' + q);
  }

  function chosen(s, rows) {
    if (s.backends === ALL) return rows;
    if (s.backends === BEST) {
      const best = new Set(P.filter(p => p.machine === s.machine && p.device === s.device && p.dtype === s.dtype
        && p.timing === s.timing && p.best).map(p => p.series));
      return rows.filter(r => best.has(r.series));
    }
    return rows.filter(r => r.series === s.backends);
  }
  const bySeries = rows => { const g = new Map(); for (const r of rows) { if (!g.has(r.series)) g.set(r.series, []); g.get(r.series).push(r); } return g; };
  const look = (series, extra) => { const st = D.styles[series] || {}; return Object.assign({line: {color: st.color, dash: st.dash, width: 2}, marker: {color: st.color, symbol: st.symbol, size: 7}}, extra); };
  const sizeAxis = ns => ({type: 'log', title: {text: 'array size: elements (log₂)'}, tickvals: sortNum(ns), ticktext: sortNum(ns).map(n => pow2(n).replace(/\^(\d+)/, '<sup>$1</sup>'))});
  function noiseText(p) {
    const parts = [];
    if (p.spread != null) parts.push(`spread ${(100 * p.spread).toFixed(1)}%${p.noisy ? ' (noisy)' : ''}`);
    if (p.reps != null) parts.push(`${p.reps} repetitions`);
    if (p.throttled) parts.push(`${p.throttled} throttled repetitions re-taken`);
    if (p.sm_clock_mhz != null) parts.push(`SM clock ${p.sm_clock_mhz.toFixed(0)} MHz`);
    if (p.load1 != null) parts.push(`load ${p.load1.toFixed(2)}`);
    return parts.length ? '<br>' + parts.join(', ') : '';
  }
  const here = s => P.filter(p => p.machine === s.machine && p.device === s.device && p.dtype === s.dtype && p.timing === s.timing);

  function speedView(s) {
    const rows = here(s);
    const traces = [];
    for (const [series, r] of bySeries(chosen(s, rows))) {
      r.sort((a, b) => a.n - b.n);
      traces.push(look(series, {x: r.map(p => p.n), y: r.map(p => p.gbps), name: series, mode: 'lines+markers',
        text: r.map(p => `<b>${esc(series)}</b> · ${p.accumulator}, ${p.order}<br>size ${pow2(p.n)} (${fmtBytes(p.bytes)})<br>`
          + `${fmtGbps(p.gbps)} GB/s${p.pct_ceiling != null ? `, ${p.pct_ceiling.toFixed(0)}% of the ceiling` : ''}<br>`
          + `${p.threads} threads${p.timing === 'batched' ? `, batched ×${p.batch}` : ''}, median of ${p.samples} rows<br>version ${esc(p.version || '—')}${noiseText(p)}`),
        hovertemplate: '%{text}<extra></extra>'}));
    }
    const ceil = new Map();
    for (const p of rows) if (p.ceiling != null && !ceil.has(p.n)) ceil.set(p.n, [p.ceiling, p.ceiling_kind]);
    const cn = [...ceil.keys()].sort((a, b) => a - b);
    if (cn.length) {
      const kind = ceil.get(cn[0])[1] === 'roofline' ? 'roofline: bytes / max(launch floor, bytes / best read)' : 'read ceiling (the fastest read of as many bytes)';
      traces.push({x: cn, y: cn.map(n => ceil.get(n)[0]), name: `ceiling — ${kind}`, mode: 'lines',
        line: {color: 'black', dash: 'dash', width: 2.5}, hovertemplate: 'ceiling %{y:.4g} GB/s<extra></extra>'});
    }
    const peak = Math.max(...rows.map(p => p.peak_gbps || 0));
    const ns = rows.map(p => p.n);
    if (peak > 0 && ns.length) traces.push({x: [Math.min(...ns), Math.max(...ns)], y: [peak, peak], mode: 'lines', name: `theoretical peak ${fmtGbps(peak)} GB/s`,
      line: {color: 'crimson', dash: 'dot', width: 1.5}, hoverinfo: 'name'});
    return {traces, layout: {xaxis: sizeAxis(ns), yaxis: Object.assign({type: 'log', title: {text: 'GB/s (log)'}}, logTicks(traces.flatMap(t => t.y)))},
      caption: `GB/s against size. Black dashed: the ceiling. ${s.backends === BEST ? 'One line per family (element type, accumulator): its fastest reduction; pick "all reductions" or one backend under "backends".' : ''}`};
  }

  function errorRows(s) {
    const rows = E.filter(e => e.machine === s.machine && e.device === s.device && e.dtype === s.dtype && e.timing === s.timing && e.rel_error != null);
    if (s.input !== WORST) return rows.filter(e => e.input === s.input);
    const worst = new Map();
    for (const e of rows) { const k = e.series + '\u0000' + e.n; const w = worst.get(k); if (!w || e.rel_error > w.rel_error) worst.set(k, e); }
    return [...worst.values()];
  }
  // Where an exact sum (error 0) and an overflowed one (inf) are drawn: a decade below the smallest
  // error and above the largest finite one.
  function errorFloor(rows) {
    const pos = rows.map(e => e.rel_error).filter(e => e > 0 && e < Infinity);
    return pos.length ? 10 ** (Math.floor(Math.log10(Math.min(...pos))) - 1) : 1e-17;
  }
  function errorTop(rows) {
    const fin = rows.map(e => e.rel_error).filter(e => e > 0 && e < Infinity);
    return fin.length ? 10 ** (Math.ceil(Math.log10(Math.max(...fin))) + 1) : 10;
  }
  const drawnError = (e, floor, top) => e === 0 ? floor : e === Infinity ? top : e;
  function errorView(s) {
    const rows = chosen(s, errorRows(s));
    const floor = errorFloor(rows), top = errorTop(rows);
    const traces = [];
    for (const [series, r] of bySeries(rows)) {
      r.sort((a, b) => a.n - b.n);
      traces.push(look(series, {x: r.map(e => e.n), y: r.map(e => drawnError(e.rel_error, floor, top)), name: series, mode: 'lines+markers',
        text: r.map(e => `<b>${esc(series)}</b><br>size ${pow2(e.n)}, input ${esc(e.input)}<br>relative error ${fmtErr(e.rel_error)}`),
        hovertemplate: '%{text}<extra></extra>'}));
    }
    return {traces, layout: {xaxis: sizeAxis(rows.map(e => e.n)), yaxis: {type: 'log', exponentformat: 'power', dtick: 1, title: {text: 'relative error |sum − exact| / |exact| (log)'}}},
      caption: `Relative error against size, input: ${esc(s.input)}. An exact sum (error 0) is drawn at the bottom, ${floor.toExponential(0)}; an overflowed one (inf), if any, at the top, ${top.toExponential(0)}.`};
  }

  function accuracyView(s) {
    const n = +s.n;
    const speed = new Map(chosen(s, here(s)).filter(p => p.n === n).map(p => [p.series, p]));
    const err = new Map(errorRows(s).filter(e => e.n === n).map(e => [e.series, e]));
    const both = [...speed.keys()].filter(b => err.has(b)).sort();
    const floor = errorFloor(both.map(b => err.get(b))), top = errorTop(both.map(b => err.get(b)));
    const traces = both.map(b => look(b, {x: [speed.get(b).gbps], y: [drawnError(err.get(b).rel_error, floor, top)], name: b,
      mode: 'markers+text', text: [b], textposition: 'top center', textfont: {size: 11}, marker: Object.assign(look(b).marker, {size: 11}),
      customdata: [[fmtGbps(speed.get(b).gbps), fmtErr(err.get(b).rel_error)]],
      hovertemplate: `<b>${esc(b)}</b><br>%{customdata[0]} GB/s<br>relative error %{customdata[1]}<extra></extra>`}));
    return {traces, layout: {xaxis: Object.assign({type: 'log', title: {text: 'GB/s (log)'}}, logTicks(traces.flatMap(t => t.x))),
      yaxis: {type: 'log', exponentformat: 'power', dtick: 1, title: {text: 'relative error (log; lower is better)'}}, showlegend: false},
      caption: `Relative error (input: ${esc(s.input)}) against GB/s at ${pow2(n)} elements: down and right is better. An exact sum is drawn at the bottom, ${floor.toExponential(0)}; an overflowed one (inf), if any, at the top, ${top.toExponential(0)}.`};
  }

  // A comparison read the other way round: its verdict turns too.
  const FLIP = {faster: 'slower', slower: 'faster'};

  function machinesView(s) {
    if (!s.vs) return {traces: [], layout: {}, caption: 'No other machine measured this device and element type.'};
    const rows = [];
    for (const c of C) {
      if (c.device !== s.device || c.dtype !== s.dtype || c.timing !== s.timing) continue;
      if (c.a === s.machine && c.b === s.vs) rows.push(c);
      else if (c.a === s.vs && c.b === s.machine) rows.push(Object.assign({}, c, {ratio: 1 / c.ratio, lo: c.hi == null ? null : 1 / c.hi, hi: c.lo == null ? null : 1 / c.lo, verdict: FLIP[c.verdict] || c.verdict, samples_a: c.samples_b, samples_b: c.samples_a}));
    }
    const bestA = new Set(P.filter(p => p.best && p.device === s.device && p.dtype === s.dtype && p.timing === s.timing && (p.machine === s.machine || p.machine === s.vs)).map(p => p.series));
    const pick = s.backends === BEST ? rows.filter(r => bestA.has(r.series)) : s.backends === ALL ? rows : rows.filter(r => r.series === s.backends);
    const traces = [];
    for (const [series, r] of bySeries(pick)) {
      r.sort((a, b) => a.n - b.n);
      const st = look(series);
      traces.push(look(series, {x: r.map(c => c.n), y: r.map(c => c.ratio), name: series, mode: 'lines+markers',
        marker: Object.assign(st.marker, {symbol: r.map(c => c.lo == null ? st.marker.symbol + '-open' : st.marker.symbol), size: 8}),
        error_y: {type: 'data', symmetric: false, array: r.map(c => c.hi == null ? 0 : c.hi - c.ratio), arrayminus: r.map(c => c.lo == null ? 0 : c.ratio - c.lo), thickness: 1.2, width: 4},
        text: r.map(c => `<b>${esc(series)}</b> at ${pow2(c.n)}<br>${esc(D.machines[s.vs].label)} / ${esc(D.machines[s.machine].label)} = ${c.ratio.toFixed(3)}`
          + (c.lo == null ? '' : ` (${(100 * D.interval).toFixed(0)}%: ${c.lo.toFixed(3)}–${c.hi.toFixed(3)})`) + `<br>${esc(c.verdict)}; samples ${c.samples_b} and ${c.samples_a}`),
        hovertemplate: '%{text}<extra></extra>'}));
    }
    const ns = pick.map(c => c.n);
    if (ns.length) traces.push({x: [Math.min(...ns), Math.max(...ns)], y: [1, 1], mode: 'lines', name: 'equal', line: {color: 'gray', dash: 'dot'}, hoverinfo: 'skip'});
    const bounds = pick.flatMap(c => [c.ratio, c.lo, c.hi]).filter(v => v != null).concat([1]);
    return {traces, layout: {xaxis: sizeAxis(ns), yaxis: Object.assign({type: 'log', title: {text: `GB/s of ${D.machines[s.vs].label} / GB/s of ${D.machines[s.machine].label} (log)`}}, logTicks(bounds))},
      caption: `${esc(machineName(s.vs, s.device))} against ${esc(machineName(s.machine, s.device))}: the ratio of GB/s per size with its ${(100 * D.interval).toFixed(0)}% interval and verdict, as compare.py gives them (4 or more rows a side: the U test and a bootstrap of the ratio of medians; fewer: from the rows' spread and repetitions, or their median-minimum gap); hollow, no bar: the noise unknown. Above 1: ${esc(D.machines[s.vs].label)} is faster.`};
  }

  function tableView(s) {
    const rows = here(s);
    const errs = E.filter(e => e.machine === s.machine && e.device === s.device && e.dtype === s.dtype && e.timing === s.timing);
    const lines = [];
    for (const n of sortNum(rows.map(p => p.n))) {
      const at = rows.filter(p => p.n === n).sort((a, b) => b.gbps - a.gbps || a.series.localeCompare(b.series));
      const top = at[0];
      const worst = new Map(), inputs = new Map();
      for (const e of errs.filter(e => e.n === n && e.rel_error != null)) {
        worst.set(e.series, Math.max(worst.get(e.series) ?? 0, e.rel_error));
        inputs.set(e.series, (inputs.get(e.series) || 0) + 1);
      }
      const most = Math.max(0, ...inputs.values());
      const gbps = new Map(at.map(p => [p.series, p.gbps]));
      const acc = [...worst.keys()].filter(b => inputs.get(b) === most)
        .sort((a, b) => (worst.get(a) > worst.get(b)) - (worst.get(a) < worst.get(b)) || (gbps.get(b) || 0) - (gbps.get(a) || 0))[0];
      lines.push(`<tr><td>${pow2(n)}</td><td class="num">${fmtBytes(top.bytes)}</td><td><code>${esc(top.series)}</code></td>`
        + `<td class="num">${fmtGbps(top.gbps)}</td><td class="num">${top.pct_ceiling == null ? '—' : top.pct_ceiling.toFixed(0) + '%'}</td>`
        + `<td class="num">${top.threads}</td><td>${acc ? `<code>${esc(acc)}</code>` : '—'}</td><td class="num">${acc ? fmtErr(worst.get(acc)) : '—'}</td>`
        + `<td>${top.spread != null ? (100 * top.spread).toFixed(1) + '%' + (top.noisy ? ' (noisy)' : '') : '—'}</td></tr>`);
    }
    return `<table><thead><tr><th>n</th><th>bytes</th><th>fastest reduction</th><th>GB/s</th><th>% of ceiling</th><th>threads</th>`
      + `<th>most accurate (worst over inputs)</th><th>worst rel. error</th><th>spread of the fastest</th></tr></thead><tbody>${lines.join('')}</tbody></table>`;
  }

  const DRAW = {speed: speedView, error: errorView, accuracy: accuracyView, machines: machinesView};

  function drawFilters(s) {
    const bar = document.getElementById('filters');
    bar.replaceChildren();
    for (const key of USES[s.view]) {
      const opts = options(key, s);
      const select = document.createElement('select');
      select.id = 'filter-' + key;
      for (const v of opts) select.add(new Option(key === 'machine' || key === 'vs' ? machineName(v, s.device) : key === 'n' ? pow2(+v) : v, v));
      select.value = s[key];
      select.addEventListener('change', () => show(Object.assign({}, state, {[key]: select.value})));
      const label = document.createElement('label');
      label.append(LABELS[key] + ': ', select);
      bar.append(label);
    }
  }
  function drawTabs(s) {
    const nav = document.getElementById('views');
    if (!nav.children.length) {
      for (const [v, name] of VIEWS) {
        const b = document.createElement('button');
        b.id = 'view-' + v;
        b.textContent = name;
        b.addEventListener('click', () => show(Object.assign({}, state, {view: v})));
        nav.append(b);
      }
    }
    for (const b of nav.children) b.classList.toggle('active', b.id === 'view-' + s.view);
  }

  function show(wanted) {
    state = settle(wanted);
    toUrl(state);
    drawTabs(state);
    drawFilters(state);
    const plot = document.getElementById(PLOT), tableDiv = document.getElementById('summary-table');
    const where = `${machineName(state.machine, state.device)} — ${state.device}, ${state.dtype}, ${state.timing}`;
    if (state.view === 'table') {
      plot.style.display = 'none';
      tableDiv.innerHTML = tableView(state);
      document.getElementById('caption').textContent = `${where}: per size the fastest reduction and the most accurate one (smallest worst relative error over the inputs, among those measured on the most inputs).`;
      return;
    }
    plot.style.display = '';
    tableDiv.replaceChildren();
    const v = DRAW[state.view](state);
    document.getElementById('caption').innerHTML = `<b>${esc(where)}</b>. ${v.caption}`;
    const layout = Object.assign({margin: {t: 20, r: 20}, hovermode: 'closest', hoverlabel: {align: 'left'},
      legend: {font: {size: 12}}, font: {size: 13}}, v.layout);
    Plotly.react(PLOT, v.traces, layout, {displaylogo: false, responsive: true});
  }

  window.addEventListener('hashchange', () => show(fromUrl()));
  window.shootoutReport = {show, state: () => state};
  show(fromUrl());
})();
