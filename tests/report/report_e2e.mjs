// heapleak report's page in a real browser: Debian's headless Chromium driven
// by playwright-core (no browser download), the page opened from disk.
//   node report_e2e.mjs HEAPLEAK RUBY REPO OUTDIR
// Three pages: the rbheap fixture's 3-dump leak (a real program's dumps),
// leakgen's class_cache (a real Ruby run) with its classes renamed to a
// hostile `<img src=x onerror=...>` + U+202E and `</script><script>...`, and
// `heapleak check --report` on it, and a series of four dumps with 100 leaks
// (many_leaks.rb, `--limit 0`). Each must draw its rows, graphs and
// treemap, embed exactly `heapleak explain --json`'s document, fetch nothing
// but the file, run no script but its own (no dialog, no CSP violation, no
// error), and show the hostile names as text. Screenshots go to OUTDIR.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import assert from 'node:assert/strict';
import { chromium } from 'playwright-core';

const [heapleak, ruby, repo, out] = process.argv.slice(2);
if (!out) {
  console.error('usage: node report_e2e.mjs HEAPLEAK RUBY REPO OUTDIR');
  process.exit(2);
}
const work = join(out, 'work');
rmSync(work, { recursive: true, force: true });
mkdirSync(work, { recursive: true });
const started = Date.now();
const env = { ...process.env, HEAPLEAK_NO_CACHE: '1' };

function run(args, { status = 0 } = {}) {
  const result = spawnSync(heapleak, args, { env, encoding: 'utf8', maxBuffer: 64 << 20 });
  assert.equal(result.status, status, `heapleak ${args.join(' ')}: exit ${result.status}\n${result.stderr}`);
  return result.stdout;
}

// ---- the dumps -----------------------------------------------------------
const fixture = ['heap1', 'heap2', 'heap3'].map((n) => join(repo, 'tests/fixtures/rbheap-3dump', `${n}.jsonl.gz`));

const cc = join(work, 'class_cache');
execFileSync(ruby, [join(repo, 'tests/gen/leakgen.rb'), 'class_cache', 'small', cc], { stdio: 'ignore' });
// The leaking app's classes renamed, in every dump: the holder's class
// (UserCache) and the leaked objects' (User). A dump's strings are the app's.
const EVIL_CACHE = '<img src=x onerror=alert(1)>\u202eCache';
const EVIL_USER = '</script><script>alert(2)</script>User';
const hostile = join(work, 'hostile');
mkdirSync(hostile);
const hostileDumps = ['A', 'B', 'C'].map((n) => {
  const text = readFileSync(join(cc, `${n}.json`), 'utf8');
  assert.ok(text.includes('"name":"UserCache"') && text.includes('"name":"User"'), `${n}.json names UserCache and User`);
  const renamed = text
    .replaceAll('"name":"UserCache"', `"name":${JSON.stringify(EVIL_CACHE)}`)
    .replaceAll('"name":"User"', `"name":${JSON.stringify(EVIL_USER)}`);
  const path = join(hostile, `${n}.json`);
  writeFileSync(path, renamed);
  return path;
});

// 100 leaks over a series of four dumps: the large page.
const many = join(work, 'many');
mkdirSync(many);
execFileSync(ruby, [join(repo, 'tests/report/many_leaks.rb'), many], { stdio: 'ignore' });
const series = ['D1', 'D2', 'D3', 'D4'].map((n) => join(many, `${n}.json`));

// ---- the pages -------------------------------------------------------------
const pages = [];
function report(name, dumps, options = []) {
  const file = join(out, `${name}.html`);
  rmSync(file, { force: true });
  run(['report', ...dumps, ...options, '-o', file]);
  pages.push({ name, file, dumps, explain: JSON.parse(run(['explain', ...dumps, ...options, '--json'])) });
}
report('report-fixture', fixture);
report('report-hostile', hostileDumps);
report('report-series-100', series, ['--limit', '0']);
{
  const file = join(out, 'report-check.html');
  rmSync(file, { force: true });
  run(['check', ...hostileDumps, '--report', file], { status: 5 });  // a new leak: the gate fails
  pages.push({ name: 'report-check', file, dumps: hostileDumps, explain: pages[1].explain });
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking',
    '--disable-component-update', '--no-first-run', '--font-render-hinting=none'],
});
let failures = 0;
try {
  for (const page of pages) {
    try {
      await check(page);
      console.log(`ok ${page.name}: ${(readFileSync(page.file).length / 1024).toFixed(1)} KiB, ${page.explain.leaks.length} leak rows, drawn in ${page.drawnIn} ms`);
    } catch (error) {
      failures++;
      console.error(`FAIL ${page.name}: ${error.stack || error}`);
    }
  }
} finally {
  await browser.close();
}
console.log(`${pages.length - failures} of ${pages.length} pages ok in ${((Date.now() - started) / 1000).toFixed(1)} s; screenshots in ${out}`);
process.exit(failures ? 1 : 0);

async function check(page) {
  const { name, file, explain } = page;
  const context = await browser.newContext({ viewport: { width: 1100, height: 900 }, deviceScaleFactor: 1, javaScriptEnabled: true });
  const tab = await context.newPage();
  const requests = [];
  const problems = [];
  tab.on('request', (request) => requests.push(request.url()));
  tab.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') problems.push(`console ${message.type()}: ${message.text()}`);
  });
  tab.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  tab.on('dialog', async (dialog) => {
    problems.push(`a dialog opened: ${dialog.message()}`);
    await dialog.dismiss();
  });
  const url = pathToFileURL(file).href;
  const opened = Date.now();
  await tab.goto(url, { waitUntil: 'load' });
  await tab.waitForSelector('body[data-drawn]', { timeout: 30000 });
  page.drawnIn = Date.now() - opened;
  if ((await tab.getAttribute('body', 'data-drawn')) !== 'true')
    assert.fail(`not drawn: ${await tab.evaluate(() => document.getElementById('draw-error')?.textContent)}`);

  // One voice: the page's data is `heapleak explain --json`'s document.
  const data = await tab.evaluate(() => JSON.parse(document.getElementById('heapleak-data').textContent));
  assert.deepEqual(data.explain, explain, 'the embedded document is explain --json');
  const leaks = explain.leaks;
  assert.ok(leaks.length >= 1, 'explain found a leak');

  // The rows: one card each, headed in explain's words.
  const dom = await tab.evaluate(() => {
    const cards = [...document.querySelectorAll('article.card.leak')];
    return {
      headline: document.getElementById('headline').textContent,
      cards: cards.map((card) => ({
        head: card.querySelector('h3').textContent,
        words: card.querySelector('pre.words').textContent,
        nodes: card.querySelectorAll('svg.graph g.node').length,
        retainers: card.querySelectorAll('svg.graph g.node-retainer').length,
        roots: card.querySelectorAll('svg.graph g.node-root').length,
        edges: card.querySelectorAll('svg.graph path.edge').length,
        growthDots: card.querySelectorAll('svg.growth circle.growth-dot').length,
      })),
      treemapCells: [...document.querySelectorAll('svg.treemap-svg g.tm-cell rect')].map((r) => Number(r.getAttribute('width')) * Number(r.getAttribute('height'))),
      treemapRows: document.querySelectorAll('svg.treemap-svg g.tm-row').length,
      noiseOpen: document.querySelector('details.noise')?.open ?? null,
      noiseRows: document.querySelectorAll('details.noise pre.noise-row').length,
      images: document.images.length,
      scripts: document.scripts.length,
      bodyText: document.body.innerText,
    };
  });
  assert.equal(dom.cards.length, leaks.length, 'one card per leak row');
  dom.cards.forEach((card, k) => {
    assert.equal(card.head, data.cards.leaks[k][0], `card ${k + 1}'s heading is explain's text line`);
    assert.ok(card.head.startsWith(`${k + 1}. `), `card ${k + 1} is numbered`);
    assert.ok(card.words.includes('holder:') || !leaks[k].holder, `card ${k + 1} names its holder`);
    assert.ok(card.nodes >= 2 && card.edges >= 1, `card ${k + 1} draws its retainer graph (${card.nodes} nodes)`);
    assert.equal(card.retainers, 1, `card ${k + 1}'s graph has its retainer`);
    assert.equal(card.roots, 1, `card ${k + 1}'s graph reaches a GC root`);
    assert.ok(card.growthDots >= 2, `card ${k + 1} charts its growth`);
  });
  assert.equal(dom.headline, data.cards.head);
  assert.ok(/^Leaks by /.test(dom.headline), `the headline is the leaks' head: ${dom.headline}`);
  // Where the memory went: explain's memory block, in its words, above the rows.
  if (explain.memory) {
    const memory = await tab.evaluate(() => [...document.querySelectorAll('#memory p')].map((p) => p.textContent));
    assert.ok(data.cards.memory.length >= 2, 'the memory block has its lines');
    assert.deepEqual(memory, data.cards.memory.map((line) => line.trim()), 'the page shows the memory block');
    assert.ok(/^Memory: /.test(memory[0]), `the block opens with the memory line: ${memory[0]}`);
  }
  assert.equal(dom.treemapRows, leaks.length, 'a treemap block per leak row');
  if (name === 'report-series-100') {
    // The series: 100 rows, each charted over the four dumps.
    assert.equal(leaks.length, 100, 'the 100 leaks of many_leaks.rb');
    dom.cards.forEach((card, k) => assert.equal(card.growthDots, 4, `card ${k + 1} charts four dumps`));
    assert.ok(dom.cards[0].words.includes('grew in 3 of 3 intervals'), dom.cards[0].words);
  }
  // A row too small for its cells under its title strip keeps the strip.
  assert.ok(dom.treemapCells.length >= Math.min(leaks.length, 90) && dom.treemapCells.every((area) => area > 0),
    `treemap cells drawn: ${dom.treemapCells.length} for ${leaks.length} rows`);
  assert.equal(dom.noiseOpen, explain.noise.length ? false : null, 'the noise rows are folded');
  assert.equal(dom.noiseRows, explain.noise.length);
  assert.equal(dom.images, 0, 'no <img> element');
  assert.equal(dom.scripts, 2, 'the data and the drawing script, nothing else');

  if (name === 'report-hostile' || name === 'report-check') {
    // Shown as text, the override escaped as the terminal shows it.
    const shown = '<img src=x onerror=alert(1)>\\u{202E}Cache';
    assert.ok(dom.cards[0].head.includes(shown), `the hostile holder's class reads as text: ${dom.cards[0].head}`);
    assert.ok(dom.cards[0].words.includes('</script><script>alert(2)</script>User'), 'the hostile class of the leaked objects reads as text');
    assert.ok(dom.bodyText.includes(shown), 'the page text shows the name');
    assert.ok(!dom.bodyText.includes('\u202e'), 'no raw right-to-left override in the page text');
    const treemapText = await tab.evaluate(() => [...document.querySelectorAll('svg.treemap-svg text')].map((t) => t.textContent).join('\n'));
    assert.ok(treemapText.includes('<img src=x onerror=alert(1)>\\u{202E}'), 'the treemap labels it as text');
  }

  // Opening, folding out and scrolling fetched nothing and ran nothing else.
  if (explain.noise.length) {
    await tab.click('details.noise summary');
    assert.equal(await tab.evaluate(() => document.querySelector('details.noise').open), true);
    await tab.click('details.noise summary');
  }
  // The whole page, but for the 100-row one (55,000 px tall): its top, and
  // its last card scrolled to.
  await tab.evaluate(() => window.scrollTo(0, 0));
  await tab.screenshot({ path: join(out, `${name}.png`), fullPage: leaks.length <= 10 });
  if (leaks.length > 10) {
    await tab.evaluate(() => document.querySelector('article.card.leak:last-of-type').scrollIntoView());
    await tab.screenshot({ path: join(out, `${name}-end.png`) });
  }
  const outside = requests.filter((u) => !u.startsWith('file:') && !u.startsWith('data:'));
  assert.deepEqual(outside, [], 'no request left the page');
  assert.deepEqual(requests, [url], 'the page made no request but its own load');
  assert.deepEqual(problems, [], 'no console error, CSP violation, page error or dialog');
  await context.close();
}
