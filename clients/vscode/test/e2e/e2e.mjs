// e2e.mjs: drives the Heapleak extension in code-server with headless
// Chromium (playwright-core): load three dumps from the Explorer's context
// menu, run the leak diff and the other commands from the palette, check the
// tree and the graph webview, save screenshots. run.sh sets the environment.
// A daemon whose `explain` answers one row per leak (issue 12; or run.sh's
// E2E_LEAK_ROWS=shim) gets the leak-row steps: open the first leak, check
// its holder, click an allocation site and land on the source line. An
// older daemon gets the per-group steps; E2E_EXPECT_LEAK_ROWS=1 makes that
// a failure.
import { createRequire } from 'node:module';
import * as fs from 'node:fs';
import * as path from 'node:path';

const env = (name) => {
  const value = process.env[name];
  if (!value) throw new Error(`e2e.mjs: ${name} is not set (run it through run.sh)`);
  return value;
};
const url = env('E2E_URL');
const out = env('E2E_OUT');
const truth = JSON.parse(fs.readFileSync(env('E2E_TRUTH'), 'utf8'));
const retainer = truth.root.retainer.address;
const expectLeakRows = process.env.E2E_EXPECT_LEAK_ROWS === '1';
/** Set after the leak diff: the tree shows one row per leak (else one per group). */
let leakRows = false;
const require = createRequire(path.join(env('E2E_NODE_MODULES'), 'noop.js'));
const { chromium } = require('playwright-core');

const steps = [];
let page;
let browser;
let server;

function log(message) {
  console.log(`[e2e] ${message}`);
}

async function step(name, run) {
  const started = Date.now();
  try {
    await run();
    steps.push({ name, ok: true, ms: Date.now() - started });
    log(`ok   ${name} (${Date.now() - started} ms)`);
  } catch (error) {
    steps.push({ name, ok: false, ms: Date.now() - started, error: String(error?.message ?? error) });
    log(`FAIL ${name}: ${error?.message ?? error}`);
    if (page) await page.screenshot({ path: path.join(out, `failed-${steps.length}.png`) }).catch(() => undefined);
    throw error;
  }
}

async function shot(name) {
  const file = path.join(out, name);
  await page.screenshot({ path: file });
  log(`screenshot ${file}`);
}

const sidebar = () => page.locator('.part.sidebar');
/** The first leak row (its description says "retained"). */
const leakRow = () => sidebar().locator('.monaco-list-row', { hasText: ' retained' }).first();
const treeRow = (text) => sidebar().locator('.monaco-list-row', { hasText: text });

/** Drags the sidebar's edge to `width` px so the screenshots show whole rows (layout only: best effort). */
async function widenSidebar(width) {
  const box = await sidebar().boundingBox();
  if (!box) return;
  const y = box.y + box.height / 2;
  await page.mouse.move(box.x + box.width - 1, y);
  await page.mouse.down();
  await page.mouse.move(box.x + width, y, { steps: 5 });
  await page.mouse.up();
}

async function palette(command, { pick } = {}) {
  // No Escape first: in a focused list it clears the selection the command may use.
  // The palette can close again as it opens while the workbench settles (a
  // view refreshing after loads takes the focus; seen once in CI): open it
  // again, three times at most, before failing.
  const input = page.locator('.quick-input-widget input');
  for (let attempt = 1; ; attempt++) {
    await page.keyboard.press('F1');
    try {
      await input.waitFor({ state: 'visible', timeout: 10_000 });
      await input.fill(`>${command}`, { timeout: 5_000 });
      break;
    } catch (error) {
      if (attempt === 3) throw error;
    }
  }
  const row = page.locator('.quick-input-list .monaco-list-row', { hasText: command }).first();
  await row.waitFor({ timeout: 10_000 });
  await page.keyboard.press('Enter');
  if (pick) await pick();
}

/** Waits for a quick pick whose title contains `title`, filters it, takes the first row. */
async function quickPick(title, filter) {
  const widget = page.locator('.quick-input-widget');
  await widget.locator('.quick-input-title', { hasText: title }).waitFor({ timeout: 20_000 });
  if (filter) {
    await widget.locator('input').fill(filter);
    await widget.locator('.quick-input-list .monaco-list-row', { hasText: filter }).first().waitFor({ timeout: 10_000 });
  } else {
    await widget.locator('.quick-input-list .monaco-list-row').first().waitFor({ timeout: 10_000 });
  }
  await page.keyboard.press('Enter');
}

async function errorToasts() {
  return page
    .locator('.notification-toast-container .notification-list-item:has(.codicon-error) .notification-list-item-message')
    .allInnerTexts()
    .catch(() => []);
}

async function clearNotifications() {
  await palette('Notifications: Clear All Notifications');
}

function webview() {
  return page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');
}

async function main() {
  // launchServer rather than launch: it tells the browser's pid, which run.sh
  // needs to clean up should this script be killed.
  server = await chromium.launchServer({
    executablePath: env('E2E_CHROMIUM'),
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });
  const pid = server.process()?.pid;
  if (pid) fs.writeFileSync(path.join(out, 'run', 'chromium.pid'), String(pid));
  browser = await chromium.connect(server.wsEndpoint());
  page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
  page.on('pageerror', (error) => log(`page error: ${error.message}`));

  await step('the workbench opens with the Heapleak activity-bar icon', async () => {
    await page.goto(url, { waitUntil: 'domcontentloaded' });
    await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    await page.locator('.activitybar [aria-label^="Heapleak"]').first().waitFor({ timeout: 60_000 });
  });

  await step('Explorer context menu: Load Heap Dump(s) on A.json..C.json', async () => {
    const explorerRow = (name) => page.locator('.explorer-folders-view .monaco-list-row', { hasText: name }).first();
    await explorerRow('A.json').waitFor({ timeout: 30_000 });
    // Select A..C; on a busy machine a click can land before the list is ready, so check and retry.
    const selected = page.locator('.explorer-folders-view .monaco-list-row.selected');
    for (let attempt = 1; ; attempt++) {
      await explorerRow('A.json').click();
      await explorerRow('A.json').and(page.locator('.selected')).waitFor({ timeout: 5_000 }).catch(() => undefined);
      await explorerRow('C.json').click({ modifiers: ['Shift'] });
      const ok = await page
        .waitForFunction(() => document.querySelectorAll('.explorer-folders-view .monaco-list-row.selected').length === 3, undefined, { timeout: 5_000 })
        .then(() => true, () => false);
      if (ok) break;
      if (attempt === 3) throw new Error(`explorer selection has ${await selected.count()} rows, not A.json..C.json`);
    }
    await explorerRow('C.json').click({ button: 'right' });
    const item = page.locator('.context-view .action-item', { hasText: 'Load Heap Dump(s)' }).first();
    await item.waitFor({ timeout: 10_000 });
    await item.click();
    // On a busy machine the click can land while the menu still opens: the item is highlighted, the menu stays.
    const menu = page.locator('.context-view .monaco-menu');
    if (!(await menu.waitFor({ state: 'hidden', timeout: 3_000 }).then(() => true, () => false))) await page.keyboard.press('Enter');
    await menu.waitFor({ state: 'hidden', timeout: 5_000 });
  });

  await step('the Heapleak view lists the three heaps', async () => {
    await page.locator('.activitybar [aria-label^="Heapleak"]').first().click();
    await palette('View: Close All Editors'); // the clicks in the Explorer opened A.json
    await widenSidebar(640);
    for (const name of ['A.json', 'B.json', 'C.json']) await treeRow(name).first().waitFor({ timeout: 60_000 });
    const text = await sidebar().innerText();
    if (!/h2 · [\d,]+ objects/.test(text)) throw new Error(`no heap description in the tree: ${text}`);
    await shot('01-heaps-loaded.png');
  });

  await step('palette: Heapleak: Run Leak Diff (baseline A, target B, later C)', async () => {
    await palette('Heapleak: Run Leak Diff', {
      pick: async () => {
        await quickPick('baseline');
        await quickPick('target');
        await quickPick('later');
      },
    });
    await treeRow('Leaked:').first().waitFor({ timeout: 60_000 });
    // Leak rows say "retained"; the per-group tree has a User group.
    await page.waitForFunction(
      () =>
        [...document.querySelectorAll('.part.sidebar .monaco-list-row')].some(
          (r) => (r.textContent ?? '').includes(' retained') || r.querySelector('.label-name')?.textContent?.trim() === 'User',
        ),
      undefined,
      { timeout: 10_000 },
    );
    leakRows = (await sidebar().locator('.monaco-list-row', { hasText: ' retained' }).count()) > 0;
    log(leakRows ? 'the daemon answers one row per leak' : 'the daemon answers one row per class: per-group tree');
    if (expectLeakRows && !leakRows) throw new Error('E2E_EXPECT_LEAK_ROWS=1 but the tree shows leak groups, not leak rows');
    if (leakRows) {
      const first = await leakRow().innerText();
      if (!/UserCache/.test(first)) throw new Error(`the first leak row does not name UserCache: ${first}`);
    } else {
      await treeRow('User').first().waitFor({ timeout: 10_000 });
      const user = await treeRow('User').first().innerText();
      if (!/300 objects/.test(user)) throw new Error(`User group row says: ${user}`);
    }
    await clearNotifications();
    await shot('02-leak-diff-tree.png');
  });

  if (leakRows) {
    await step('tree: the first leak row expands to its holder (the true retainer), path, objects by class, samples', async () => {
      await leakRow().locator('.monaco-tl-twistie').click();
      const holder = sidebar().locator('.monaco-list-row', { hasText: 'Holder:' }).first();
      await holder.waitFor({ timeout: 10_000 });
      const text = await holder.innerText();
      if (!text.includes(retainer)) throw new Error(`holder row says ${text}; the true holder is ${retainer}`);
      for (const part of ['Reached through', 'Objects by class', 'Samples']) await treeRow(part).first().waitFor({ timeout: 10_000 });
    });

    await step('tree: Objects by class -> User -> its allocation site opens the source file at the line', async () => {
      await treeRow('Objects by class').first().locator('.monaco-tl-twistie').click();
      const user = sidebar().locator('.monaco-list-row', { hasText: /^\s*User\s*[\d,]+ objects/ }).first();
      await user.waitFor({ timeout: 10_000 });
      await user.locator('.monaco-tl-twistie').click();
      const site = sidebar().locator('.monaco-list-row', { hasText: /\.rb:\d+/ }).first();
      await site.waitFor({ timeout: 10_000 });
      const [, file, line] = /([^\s/]+\.rb):(\d+)$/.exec((await site.locator('.label-name').first().innerText()).trim());
      // run.sh sets workbench.list.openMode to doubleClick: a row's command runs on a double click.
      await site.dblclick();
      await page.locator('.tabs-container .tab', { hasText: file }).first().waitFor({ timeout: 30_000 });
      const selection = page.locator('.statusbar-item', { hasText: `Ln ${line},` }).first();
      await selection.waitFor({ timeout: 10_000 });
      await shot('03-allocation-site-opened.png');
      await palette('View: Close All Editors');
    });

    await step('editor: the User allocation line is squiggled, with its hover, Problems entry and CodeLens (show leak reveals the row)', async () => {
      const site = sidebar().locator('.monaco-list-row', { hasText: /\.rb:\d+/ }).first();
      const [, file, line] = /([^\s/]+\.rb):(\d+)$/.exec((await site.locator('.label-name').first().innerText()).trim());
      await site.dblclick();
      await page.locator('.tabs-container .tab', { hasText: file }).first().waitFor({ timeout: 30_000 });
      const editor = page.locator('.editor-instance .monaco-editor').first();
      await editor.locator('.view-overlays .squiggly-warning').first().waitFor({ timeout: 30_000 });
      // The squiggle sits on the site's line: its overlay row has that line number's top.
      const where = await page.evaluate((wanted) => {
        const ed = document.querySelector('.editor-instance .monaco-editor');
        const number = [...ed.querySelectorAll('.margin-view-overlays .line-numbers')].find((n) => n.textContent.trim() === wanted);
        const top = number?.parentElement?.style.top;
        const squiggled = [...ed.querySelectorAll('.view-overlays .squiggly-warning')].map((s) => s.parentElement?.style.top);
        const text = [...ed.querySelectorAll('.view-lines .view-line')].find((l) => l.style.top === top)?.textContent ?? '';
        return { top, squiggled, text };
      }, line);
      if (!where.top || !where.squiggled.includes(where.top)) throw new Error(`line ${line} is not squiggled (line top ${where.top}, squiggles at ${where.squiggled.join(',')})`);
      if (!/User\.new/.test(where.text)) throw new Error(`the squiggled line ${line} reads: ${where.text}`);
      const lens = editor.locator('.codelens-decoration', { hasText: 'show leak' }).first();
      await lens.waitFor({ timeout: 30_000 });
      if (!/^heapleak: [\d,]+ leaked objects, [\d.]+ (B|KiB|MiB) retained — show leak$/.test((await lens.innerText()).trim()))
        throw new Error(`CodeLens reads: ${await lens.innerText()}`);
      // the hover on the line (the cursor is on it) says what is held and by what
      await palette('Show or Focus Hover');
      const hover = page.locator('.monaco-hover', { hasText: 'User allocated here are held by' }).first();
      await hover.waitFor({ timeout: 15_000 });
      if (!/300 User allocated here are held by Hash in UserCache/.test(await hover.innerText())) throw new Error(`hover: ${await hover.innerText()}`);
      await shot('09-squiggle-hover.png');
      await page.keyboard.press('Escape');
      await page.keyboard.press('Control+Shift+M');
      const problem = page.locator('.markers-panel .monaco-list-row', { hasText: '300 User allocated here are held by Hash in UserCache' }).first();
      await problem.waitFor({ timeout: 15_000 });
      if (!/heapleak/.test(await problem.innerText())) throw new Error(`Problems entry: ${await problem.innerText()}`);
      await shot('10-problems-codelens.png');
      // "show leak" selects the leak row in the Heapleak view (the site row was selected)
      // (CodeLenses are re-rendered when the markers change; a click on one being replaced is lost: retry)
      const revealed = sidebar().locator('.monaco-list-row.selected', { hasText: ' retained' }).first();
      for (let attempt = 1; ; attempt++) {
        await lens.click();
        if (await revealed.waitFor({ timeout: 5_000 }).then(() => true, () => false)) break;
        if (attempt === 3) throw new Error('"show leak" did not select the leak row');
        log(`"show leak" click ${attempt} did not select the leak row; again`);
      }
      // Select the site row again: the next steps run palette commands that act on a selected leak or object.
      await site.click();
      await sidebar().locator('.monaco-list-row.selected', { hasText: /\.rb:\d+/ }).first().waitFor({ timeout: 10_000 });
      await palette('View: Hide Panel');
      await palette('View: Close All Editors');
    });
  }

  await step('palette: Heapleak: Find Common Retainer (User) draws the graph with the retainer', async () => {
    await palette('Heapleak: Find Common Retainer', { pick: () => quickPick('common retainer', 'User') });
    const headline = webview().locator('#headline');
    await headline.waitFor({ timeout: 60_000 });
    const text = await headline.innerText();
    const samples = await webview().locator('g.node polygon[stroke="blue"]').count();
    if (samples < 2) throw new Error(`only ${samples} sample nodes drawn`);
    if (leakRows) {
      // A leak row's samples are every leaked class under the holder: their common retainer may sit below it.
      if (!text.startsWith('Retainer: 0x')) throw new Error(`graph headline: ${text}`);
      if ((await webview().locator('g.node polygon[stroke="red"]').count()) !== 1) throw new Error('no retainer node drawn red');
    } else {
      if (!text.includes(`Retainer: ${retainer}`)) throw new Error(`graph headline: ${text}; expected retainer ${retainer}`);
      const node = webview().locator('g.node', { has: webview().locator('title', { hasText: retainer }) });
      await node.first().waitFor({ timeout: 10_000 });
      const red = await node.first().locator('polygon[stroke="red"]').count();
      if (red !== 1) throw new Error('the retainer node is not drawn red');
    }
    await clearNotifications();
    await shot('04-retainer-graph.png');
  });

  await step('clicking the retainer node in the graph inspects it', async () => {
    const red = webview().locator('g.node', { has: webview().locator('polygon[stroke="red"]') }).first();
    const shown = leakRows ? ((await red.locator('title').first().textContent()) ?? '').trim() : retainer;
    const node = webview().locator('g.node', { has: webview().locator('title', { hasText: shown }) }).first();
    await node.click();
    await page.locator('.tabs-container .tab', { hasText: `${shown}.jsonc` }).first().waitFor({ timeout: 30_000 });
    await page.locator('.monaco-editor .view-lines', { hasText: `object ${shown}` }).first().waitFor({ timeout: 10_000 });
    await shot('05-inspect-from-graph.png');
  });

  if (leakRows) {
    await step('tree: the holder -> its referrers; Path to GC Root on it', async () => {
      const holder = sidebar().locator('.monaco-list-row', { hasText: 'Holder:' }).first();
      await holder.locator('.monaco-tl-twistie').click();
      await sidebar().locator('.monaco-list-row', { hasText: /^\s*0x[0-9a-f]+/ }).first().waitFor({ timeout: 30_000 });
      await shot('06-tree-holder-referrers.png');
      await holder.click();
      await palette('Heapleak: Path to GC Root');
      await webview().locator('#headline', { hasText: 'Path from GC root' }).waitFor({ timeout: 60_000 });
      await webview().locator('g.node', { has: webview().locator('title', { hasText: retainer }) }).first().waitFor({ timeout: 10_000 });
      await clearNotifications();
      await shot('07-path-to-root.png');
    });
  } else {
    await step('tree: User group -> sample objects -> referrers (the retainer)', async () => {
      const user = treeRow('User').first();
      await user.locator('.monaco-tl-twistie').click();
      const sample = sidebar().locator('.monaco-list-row', { hasText: /^0x[0-9a-f]+\s*User/ }).first();
      await sample.waitFor({ timeout: 10_000 });
      await sample.locator('.monaco-tl-twistie').click();
      await treeRow(retainer).first().waitFor({ timeout: 30_000 });
      await shot('06-tree-referrers.png');
    });

    await step('palette: Heapleak: Path to GC Root on the selected sample', async () => {
      const sample = sidebar().locator('.monaco-list-row', { hasText: /^0x[0-9a-f]+\s*User/ }).first();
      await sample.click();
      await palette('Heapleak: Path to GC Root');
      const headline = webview().locator('#headline', { hasText: 'Path from GC root' });
      await headline.waitFor({ timeout: 60_000 });
      await webview().locator('g.node', { has: webview().locator('title', { hasText: retainer }) }).first().waitFor({ timeout: 10_000 });
      await clearNotifications();
      await shot('07-path-to-root.png');
    });
  }

  await step('palette: Heapleak: Inspect Object on the retainer (heap B, typed address)', async () => {
    // Close the object documents, clear the tree selection: the command must ask.
    await palette('View: Close All Editors');
    await page.locator('.tabs-container .tab', { hasText: '.jsonc' }).first().waitFor({ state: 'detached', timeout: 10_000 });
    await sidebar().locator('.monaco-list-row.selected').first().click({ modifiers: ['Control'] });
    await palette('Heapleak: Inspect Object', {
      pick: async () => {
        await quickPick('inspect object', 'B.json');
        const input = page.locator('.quick-input-widget input');
        await page.locator('.quick-input-widget .quick-input-message', { hasText: 'Object address' }).first().waitFor({ timeout: 10_000 });
        await input.fill(retainer);
        await page.keyboard.press('Enter');
      },
    });
    await page.locator('.tabs-container .tab', { hasText: `${retainer}.jsonc` }).first().waitFor({ timeout: 30_000 });
  });

  await step('palette: Heapleak: Show Dominator Treemap (B): cells by retained bytes, the leak outlined, zoom to the holder', async () => {
    await palette('View: Close All Editors');
    await palette('Heapleak: Show Dominator Treemap', { pick: () => quickPick('dominator treemap', 'B.json') });
    const map = webview();
    await map.locator('#treemap g.cell').first().waitFor({ timeout: 60_000 });
    const top = await map.locator('#treemap g.cell.depth1').count();
    const all = await map.locator('#treemap g.cell rect').count();
    if (top < 5 || all <= top) throw new Error(`the treemap has ${top} top cells and ${all} rects`);
    const headline = await map.locator('#headline').innerText();
    if (!/reachable in [\d,]+ objects/.test(headline)) throw new Error(`treemap headline: ${headline}`);
    const labels = await map.locator('#treemap g.cell.depth1 text.name').allTextContents();
    if (!labels.some((l) => l.startsWith('UserCache'))) throw new Error(`no UserCache cell among ${labels.join(', ')}`);
    if (leakRows) {
      // the holder (a depth-2 cell inside UserCache) is outlined as a leak
      await map.locator(`#treemap g.cell.leak[data-address="${retainer}"]`).waitFor({ timeout: 10_000 });
    }
    await shot('11-treemap.png');
    // on its title strip: the rest of the cell is its children's
    await map.locator('#treemap g.cell.depth1[data-name="UserCache"] > rect').first().click({ position: { x: 6, y: 6 } });
    await map.locator('body:not([data-zoom="ROOT"])').waitFor({ timeout: 10_000 });
    // the Hash (the first answer has its children: three levels) zooms in
    await map.locator(`#treemap g.cell.depth1[data-address="${retainer}"] > rect`).click({ position: { x: 6, y: 6 } });
    await map.locator(`body[data-zoom="${retainer}"]`).waitFor({ timeout: 30_000 });
    const users = await map.locator('#treemap g.cell.depth1[data-name="User"]').count();
    if (users < 10) throw new Error(`only ${users} User cells under the holder`);
    await shot('12-treemap-zoomed-holder.png');
    await map.locator('#inspect').click();
    await page.locator('.tabs-container .tab', { hasText: `${retainer}.jsonc` }).first().waitFor({ timeout: 30_000 });
    // a User was a leaf of the first answer (three levels): zooming into it asks the daemon for its children
    const user = map.locator('#treemap g.cell.depth1.zoomable[data-name="User"]').first();
    const address = await user.getAttribute('data-address');
    await user.locator('> rect').click({ position: { x: 6, y: 6 } });
    await map.locator(`body[data-zoom="${address}"]`).waitFor({ timeout: 30_000 });
    if ((await map.locator('#treemap g.cell.depth1').count()) < 2) throw new Error(`the User ${address} shows no children`);
  });

  await step('palette: Heapleak: Unload Heap (C.json)', async () => {
    await palette('Heapleak: Unload Heap', { pick: () => quickPick('unload', 'C.json') });
    await page.waitForFunction(
      () => ![...document.querySelectorAll('.part.sidebar .monaco-list-row')].some((r) => r.textContent?.includes('C.json')),
      undefined,
      { timeout: 30_000 },
    );
    await shot('08-unloaded.png');
  });

  await step('no error notification was shown', async () => {
    const errors = await errorToasts();
    if (errors.length) throw new Error(`error notifications: ${errors.join(' | ')}`);
  });
}

let failed = false;
try {
  await main();
} catch (error) {
  failed = true;
  if (!steps.some((s) => !s.ok)) console.error(`[e2e] ${error?.stack ?? error}`);
} finally {
  fs.writeFileSync(path.join(out, 'steps.json'), JSON.stringify(steps, null, 2));
  await browser?.close().catch(() => undefined);
  await server?.close().catch(() => undefined);
  fs.rmSync(path.join(out, 'run', 'chromium.pid'), { force: true });
}
const passed = steps.filter((s) => s.ok).length;
console.log(`e2e: ${passed} passed, ${steps.length - passed} failed`);
process.exit(failed ? 1 : 0);
