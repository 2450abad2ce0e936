// heapleak report: draws the page from the JSON embedded beside this script
// (results/report_data.h: explain's document, the cards' words, each row's
// retainer graph, the dumps). Every string from a dump reaches the page as
// text (textContent, SVG <text>), never as markup, and is shown through
// visible() so controls and bidi overrides appear escaped, as on a terminal.
// No network, no timers, no randomness: the same data draws the same page.
'use strict';
(function () {
  const SVG = 'http://www.w3.org/2000/svg';
  const data = JSON.parse(document.getElementById('heapleak-data').textContent);
  const explain = data.explain || {};
  const cards = data.cards || {};
  const main = document.getElementById('report');

  // The escaping rule of results/text/terminal_safe.h: C0 controls and DEL as
  // \xHH, C1 controls, bidi marks, embeddings, overrides, isolates and line
  // separators as \u{HHHH}. The C++ side applies it already; this keeps a
  // string from anywhere else harmless too (idempotent).
  function visible(text) {
    return String(text ?? '').replace(
      /[\u0000-\u001f\u007f]|[\u0080-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g,
      (c) => {
        const code = c.charCodeAt(0);
        const hex = code.toString(16).toUpperCase();
        return code < 0x80 ? '\\x' + hex.padStart(2, '0') : '\\u{' + hex.padStart(4, '0') + '}';
      });
  }

  function el(tag, attrs, text) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    if (text !== undefined) node.textContent = visible(text);
    return node;
  }

  function svg(tag, attrs, text) {
    const node = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, String(v));
    if (text !== undefined) node.textContent = visible(text);
    return node;
  }

  // The unit rule (results/text/human_bytes): IEC, no decimal for bytes,
  // one past them, the next unit from 1000 on.
  function humanBytes(n) {
    const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
    let value = Number(n) || 0;
    let unit = 0;
    while (value >= 1000 && unit + 1 < units.length) {
      value /= 1024;
      unit++;
    }
    return unit === 0 ? `${Math.round(value)} B` : `${value.toFixed(1)} ${units[unit]}`;
  }

  // The count rule: thousands grouped with commas.
  function grouped(n) {
    return String(Math.round(Number(n) || 0)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  }

  // A stable colour per class key, as the VS Code treemap colours it.
  function classColor(key) {
    let hash = 2166136261;
    for (let k = 0; k < key.length; k++) {
      hash ^= key.charCodeAt(k);
      hash = Math.imul(hash, 16777619);
    }
    return `hsl(${(hash >>> 0) % 360}, 42%, 58%)`;
  }

  // ---- header: the dumps, what is new, the warnings --------------------------
  function header() {
    const head = el('header');
    head.append(el('h1', {}, 'heapleak report'));
    head.append(el('p', { class: 'headline', id: 'headline' }, cards.head || ''));
    const dumps = data.dumps || [];
    if (dumps.length) {
      const table = el('table', { class: 'dumps' });
      const titles = el('tr');
      for (const t of ['dump', 'file', 'taken', 'objects', 'allocation sites'])
        titles.append(el('th', {}, t));
      table.append(titles);
      const roles = dumps.length > 3 ? dumps.map((_, k) => `D${k + 1}`) : ['A', 'B', 'C'];
      dumps.forEach((dump, k) => {
        const row = el('tr');
        row.append(el('td', {}, roles[k]));
        row.append(el('td', { title: visible(dump.path) }, dump.name));
        const taken = dump.dumpedAt
          ? `${dump.dumpedAt.replace('T', ' ').replace(/\.\d+Z$/, 'Z')}${dump.timeFrom === 'file' ? ' (file time)' : ''}`
          : 'unknown';
        row.append(el('td', {}, taken));
        row.append(el('td', { class: 'num' }, grouped(dump.objects)));
        row.append(el('td', {}, dump.traced ? 'traced' : 'not traced'));
        table.append(row);
      });
      head.append(table);
    }
    // Where the memory went (explain's memory block, in its words): first
    // line the growth in parts, then the verdict and what to try.
    if ((cards.memory || []).length) {
      const box = el('section', { class: 'memory', id: 'memory' });
      box.append(el('h2', {}, 'Where the memory went'));
      for (const line of cards.memory) box.append(el('p', {}, line.trim()));
      head.append(box);
    }
    const warnings = [...(cards.warnings || [])];
    const target = dumps.length > 3 ? dumps[dumps.length - 2] : dumps[1];
    if (target && !target.traced)
      warnings.push(`${target.name} was dumped without allocation tracing: the rows name no allocation sites (call ObjectSpace.trace_object_allocations_start before the first dump)`);
    if (warnings.length) {
      const box = el('section', { class: 'warnings', id: 'warnings' });
      box.append(el('h2', {}, 'Warnings'));
      const list = el('ul');
      for (const w of warnings) list.append(el('li', {}, w));
      box.append(list);
      head.append(box);
    }
    return head;
  }

  // ---- treemap: retained bytes by leak row, then by class --------------------
  function treemapData(leaks) {
    return {
      name: 'leaks',
      children: leaks.map((row, k) => {
        const objects = row.objects || [];
        const held = objects.reduce((sum, o) => sum + (Number(o.memsize) || 0), 0);
        const retained = Number(row.retained) || 0;
        // Classes share the row's retained bytes in proportion to their own;
        // what the row keeps beyond them is one cell of its own.
        const scale = held > retained && held > 0 ? retained / held : 1;
        const children = objects.map((o) => ({
          name: o.name || o.key || '?', key: o.key || o.name || '?', value: (Number(o.memsize) || 0) * scale,
          bytes: Number(o.memsize) || 0, count: o.count, row: k,
        }));
        if (retained > held) children.push({ name: 'other retained', key: '', value: retained - held, bytes: retained - held, row: k, rest: true });
        return { name: row.key || '?', row: k, retained, children };
      }),
    };
  }

  function treemap(leaks) {
    const section = el('section', { class: 'treemap', id: 'treemap' });
    section.append(el('h2', {}, 'Retained bytes by leak and class'));
    if (!leaks.length) {
      section.append(el('p', { class: 'none' }, 'No leak rows: nothing to draw.'));
      return section;
    }
    const width = 960;
    const height = Math.min(520, 110 + 60 * leaks.length);
    const root = d3.hierarchy(treemapData(leaks))
      .sum((d) => (d.children ? 0 : d.value))
      .sort((a, b) => (b.value || 0) - (a.value || 0));
    d3.treemap().tile(d3.treemapSquarify).size([width, height]).paddingInner(2)
      .paddingOuter((d) => (d.depth === 1 ? 2 : 0)).paddingTop((d) => (d.depth === 1 ? 18 : 0))
      .round(true)(root);
    const picture = svg('svg', { viewBox: `0 0 ${width} ${height}`, width, height, role: 'img', class: 'treemap-svg' });
    picture.append(svg('title', {}, 'Retained bytes by leak row and class'));
    for (const node of root.descendants()) {
      if (node.depth === 0) continue;
      const w = node.x1 - node.x0;
      const h = node.y1 - node.y0;
      if (w < 1 || h < 1) continue;
      const d = node.data;
      const group = svg('g', { class: node.depth === 1 ? 'tm-row' : 'tm-cell', 'data-row': d.row });
      const fill = node.depth === 1 ? '#f4f4f4' : d.rest ? '#d9d9d9' : classColor(d.key);
      group.append(svg('rect', { x: node.x0, y: node.y0, width: w, height: h, fill, stroke: node.depth === 1 ? '#b00020' : '#ffffff' }));
      const what = node.depth === 1
        ? `${d.row + 1}. ${d.name}: retaining ${humanBytes(d.retained)}`
        : `${d.name}${d.count !== undefined ? ` (${grouped(d.count)} objects)` : ''}: ${humanBytes(d.bytes)}`;
      group.append(svg('title', {}, what));
      // A label only where it fits; the <title> says it on hover anyway.
      if (w > 40 && h > 14) {
        const label = node.depth === 1 ? `${d.row + 1}. ${d.name} — ${humanBytes(d.retained)}` : d.name;
        const text = svg('text', { x: node.x0 + 4, y: node.y0 + 13, class: node.depth === 1 ? 'tm-row-label' : 'tm-label' });
        const room = Math.floor((w - 8) / 6.6);
        const shown = visible(label);
        text.textContent = shown.length > room ? shown.slice(0, Math.max(1, room - 1)) + '…' : shown;
        group.append(text);
      }
      // A click on a row's block goes to its card.
      group.addEventListener('click', () => document.getElementById(`leak-${d.row + 1}`)?.scrollIntoView());
      picture.append(group);
    }
    section.append(picture);
    return section;
  }

  // ---- growth: the holder's size in each dump, as a small line chart ---------
  function growthValues(row) {
    const names = (data.dumps || []).map((d) => d.name);
    if (Array.isArray(row.growthCounts) && row.growthCounts.length >= 2)
      return row.growthCounts.map((v, k) => ({ label: `D${k + 1}`, file: names[k], value: typeof v === 'number' ? v : null }));
    const g = row.growth;
    if (!g || typeof g !== 'object') return [];
    return [['A', 'baseline', 0], ['B', 'target', 1], ['C', 'later', 2]]
      .filter(([, key]) => key !== 'later' || g.later !== undefined)
      .map(([label, key, k]) => ({ label, file: names[k], value: key === 'baseline' && g.born ? null : (typeof g[key] === 'number' ? g[key] : null) }));
  }

  function growthChart(row) {
    const values = growthValues(row);
    if (values.length < 2 || values.every((v) => v.value === null)) return null;
    const width = 260, height = 96, left = 44, right = 12, top = 14, bottom = 22;
    const known = values.filter((v) => v.value !== null).map((v) => v.value);
    const max = Math.max(1, ...known);
    const x = (k) => left + (k * (width - left - right)) / (values.length - 1);
    const y = (v) => top + (height - top - bottom) * (1 - v / max);
    const chart = svg('svg', { viewBox: `0 0 ${width} ${height}`, width, height, class: 'growth', role: 'img' });
    chart.append(svg('title', {}, `${(row.growth && row.growth.field) || 'size'} of the holder in each dump: ` +
      values.map((v) => `${v.label} ${v.value === null ? '?' : grouped(v.value)}`).join(', ')));
    chart.append(svg('line', { x1: left, y1: y(0), x2: width - right, y2: y(0), class: 'axis' }));
    chart.append(svg('text', { x: left - 4, y: y(max) + 4, class: 'tick', 'text-anchor': 'end' }, grouped(max)));
    chart.append(svg('text', { x: left - 4, y: y(0) + 4, class: 'tick', 'text-anchor': 'end' }, '0'));
    let points = '';
    values.forEach((v, k) => {
      chart.append(svg('text', { x: x(k), y: height - 6, class: 'tick', 'text-anchor': 'middle' }, v.label));
      if (v.value === null) return;
      points += `${x(k)},${y(v.value)} `;
    });
    chart.append(svg('polyline', { points: points.trim(), class: 'growth-line' }));
    values.forEach((v, k) => {
      if (v.value === null) return;
      const dot = svg('circle', { cx: x(k), cy: y(v.value), r: 3, class: 'growth-dot' });
      dot.append(svg('title', {}, `${v.label} (${v.file || ''}): ${grouped(v.value)}`));
      chart.append(dot);
    });
    return chart;
  }

  // ---- the retainer graph: root's drawing, laid out in layers ---------------
  // Holder -> held, the GC root on the right and the samples on the left as
  // `root`'s Graphviz drawing has them (rankdir=RL).
  function retainerGraph(graph) {
    const nodes = graph.nodes || [];
    const edges = (graph.edges || []).filter((e) => e[0] < nodes.length && e[1] < nodes.length && e[0] !== e[1]);
    if (!nodes.length) return null;
    const parents = nodes.map(() => []);
    const children = nodes.map(() => []);
    for (const [from, to] of edges) {
      parents[to].push(from);
      children[from].push(to);
    }
    // Longest path from a source, bounded so a cycle cannot loop.
    const depth = nodes.map(() => 0);
    for (let pass = 0; pass < nodes.length; pass++) {
      let changed = false;
      for (const [from, to] of edges) {
        if (depth[to] < depth[from] + 1 && depth[from] + 1 < nodes.length) {
          depth[to] = depth[from] + 1;
          changed = true;
        }
      }
      if (!changed) break;
    }
    const layers = [];
    nodes.forEach((_, k) => (layers[depth[k]] = layers[depth[k]] || []).push(k));
    // Each layer ordered by its parents' places: fewer crossings.
    const place = nodes.map(() => 0);
    layers.forEach((layer) => {
      if (!layer) return;
      layer.sort((a, b) => {
        const at = (k) => (parents[k].length ? parents[k].reduce((s, p) => s + place[p], 0) / parents[k].length : 0);
        return at(a) - at(b) || a - b;
      });
      layer.forEach((k, i) => (place[k] = i));
    });
    const charWidth = 6.4, lineHeight = 13, gapX = 40, gapY = 12, room = 34;
    // Labels cut to `room` characters: a site keeps its end (file:line), a
    // name its start; the node's <title> has them whole.
    const fit = (line, i) => (line.length <= room ? line : i === 2 ? '…' + line.slice(line.length - room + 1) : line.slice(0, room - 1) + '…');
    const size = nodes.map((n) => {
      const whole = (n.label || []).map(visible);
      const lines = whole.map(fit);
      const longest = Math.max(4, ...lines.map((l) => l.length));
      return { w: longest * charWidth + 14, h: lines.length * lineHeight + 10, lines, whole };
    });
    const columns = layers.length;
    const columnWidth = layers.map((layer) => Math.max(0, ...(layer || []).map((k) => size[k].w)));
    const columnX = [];
    let x = 10;
    for (let c = columns - 1; c >= 0; c--) {
      columnX[c] = x;
      x += columnWidth[c] + gapX;
    }
    const width = x - gapX + 10;
    const pos = [];
    let height = 0;
    layers.forEach((layer, c) => {
      let y = 10;
      (layer || []).forEach((k) => {
        pos[k] = { x: columnX[c] + (columnWidth[c] - size[k].w) / 2, y };
        y += size[k].h + gapY;
      });
      height = Math.max(height, y);
    });
    // Drawn as wide as the card, shrunk down to 60% to fit it; wider graphs
    // scroll.
    const cardWidth = Math.max(300, (main.clientWidth || 960) - 64);
    const scale = Math.max(0.6, Math.min(1, cardWidth / width));
    const picture = svg('svg', { viewBox: `0 0 ${width} ${height}`, width: Math.round(width * scale), height: Math.round(height * scale), class: 'graph', role: 'img' });
    picture.append(svg('title', {}, 'Retainer graph: what holds the samples, and its path from a GC root'));
    const defs = svg('defs');
    const marker = svg('marker', { id: 'arrow', viewBox: '0 0 10 10', refX: 10, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' });
    marker.append(svg('path', { d: 'M 0 0 L 10 5 L 0 10 z', class: 'arrow' }));
    defs.append(marker);
    picture.append(defs);
    for (const [from, to] of edges) {
      // From the holder's left side to the held object's right side.
      const a = pos[from], b = pos[to];
      const x1 = a.x, y1 = a.y + size[from].h / 2, x2 = b.x + size[to].w, y2 = b.y + size[to].h / 2;
      const mid = (x1 + x2) / 2;
      const role = nodes[to].role;
      picture.append(svg('path', {
        d: `M ${x1} ${y1} C ${mid} ${y1}, ${mid} ${y2}, ${x2} ${y2}`,
        class: role === 'rootPath' || nodes[from].role === 'root' ? 'edge edge-root' : 'edge',
        'marker-end': 'url(#arrow)',
      }));
    }
    nodes.forEach((n, k) => {
      const group = svg('g', { class: `node node-${n.role}` });
      const p = pos[k];
      if (n.role === 'root') group.append(svg('ellipse', { cx: p.x + size[k].w / 2, cy: p.y + size[k].h / 2, rx: size[k].w / 2, ry: size[k].h / 2 }));
      else group.append(svg('rect', { x: p.x, y: p.y, width: size[k].w, height: size[k].h, rx: 3 }));
      size[k].lines.forEach((line, i) => {
        group.append(svg('text', { x: p.x + size[k].w / 2, y: p.y + 5 + lineHeight * (i + 1) - 2, 'text-anchor': 'middle' }, line));
      });
      group.append(svg('title', {}, size[k].whole.join('\n')));
      picture.append(group);
    });
    return picture;
  }

  // ---- one card per leak row, in the text renderer's words -------------------
  function leakCard(row, lines, graph, k) {
    const card = el('article', { class: 'card leak', id: `leak-${k + 1}` });
    card.append(el('h3', {}, lines[0] || `${k + 1}. ${row.key || ''}`));
    const body = el('div', { class: 'card-body' });
    const words = el('pre', { class: 'words' });
    words.textContent = lines.slice(1).map(visible).join('\n');
    body.append(words);
    const chart = growthChart(row);
    if (chart) {
      const figure = el('figure', { class: 'growth-figure' });
      figure.append(chart);
      figure.append(el('figcaption', {}, `holder's ${(row.growth && row.growth.field) || 'size'} per dump`));
      body.append(figure);
    }
    card.append(body);
    if (graph) {
      const drawn = retainerGraph(graph);
      if (drawn) {
        const figure = el('figure', { class: 'graph-figure' });
        figure.append(el('figcaption', {}, `What holds ${Math.min((row.samples || []).length, 5)} of its objects in the target dump (as heapleak root draws it): samples blue, their common retainer red, its path from the GC root grey`));
        const scroll = el('div', { class: 'graph-scroll' });
        scroll.append(drawn);
        figure.append(scroll);
        card.append(figure);
      }
    }
    return card;
  }

  function noiseSection(noise) {
    const folded = el('details', { class: 'noise', id: 'noise' });
    folded.append(el('summary', {}, `Probably not leaks: ${grouped(explain.noiseCount ?? noise.length)} rows, each with why`));
    for (const lines of noise) {
      const item = el('pre', { class: 'words noise-row' });
      item.textContent = lines.map(visible).join('\n');
      folded.append(item);
    }
    return folded;
  }

  function draw() {
    const leaks = explain.leaks || [];
    main.append(header());
    main.append(treemap(leaks));
    const list = el('section', { class: 'leaks', id: 'leaks' });
    list.append(el('h2', {}, 'Leaks by bytes retained'));
    if (!leaks.length) list.append(el('p', { class: 'none' }, 'No leak: nothing new in B is still held in C by a growing container.'));
    leaks.forEach((row, k) => list.append(leakCard(row, (cards.leaks || [])[k] || [], (data.graphs || [])[k], k)));
    for (const line of cards.more || []) list.append(el('p', { class: 'more' }, line));
    main.append(list);
    if ((cards.noise || []).length) main.append(noiseSection(cards.noise));
    main.append(el('footer', {}, `heapleak ${data.version || ''}: the rows of heapleak explain, from the document embedded in this file (explain --json).`));
    document.body.setAttribute('data-drawn', 'true');
  }

  try {
    draw();
  } catch (error) {
    main.append(el('p', { class: 'error', id: 'draw-error' }, `The report could not be drawn: ${error && error.message}`));
    document.body.setAttribute('data-drawn', 'error');
  }
})();
