// SPDX-License-Identifier: GPL-2.0
// Load a perf script text into speedscope (its released web app, in headless
// Chromium) and print what speedscope made of it: its own export, JSON.
//
//   node speedscope_export.mjs NODE_MODULES PROFILE_TXT > export.json
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { join, extname } from 'node:path';
import { createRequire } from 'node:module';

const [modules, profile] = process.argv.slice(2);
if (!modules || !profile) {
	console.error('usage: speedscope_export.mjs NODE_MODULES PROFILE_TXT');
	process.exit(2);
}
const require = createRequire(join(modules, 'noop.js'));
const { chromium } = require('playwright-core');
const release = join(modules, 'speedscope', 'dist', 'release');
const types = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css',
		'.wasm': 'application/wasm', '.json': 'application/json' };

// speedscope fetches ?profileURL= from its own origin: serve both.
const server = createServer((req, res) => {
	const url = new URL(req.url, 'http://localhost');
	try {
		const body = url.pathname === '/profile.txt' ? readFileSync(profile) :
			readFileSync(join(release, url.pathname.replace(/^\/+/, '') || 'index.html'));
		res.writeHead(200, { 'content-type': types[extname(url.pathname)] || 'text/plain' });
		res.end(body);
	} catch {
		res.writeHead(404);
		res.end();
	}
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const port = server.address().port;

const browser = await chromium.launch({
	executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
	args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
	       '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
let status = 0;
try {
	const page = await browser.newPage({ acceptDownloads: true });
	const errors = [];
	page.on('pageerror', (e) => errors.push(String(e)));
	// An input speedscope cannot read ends in an alert ("Unrecognized format!").
	const refused = new Promise((resolve, reject) => {
		page.on('dialog', (d) => {
			d.dismiss().catch(() => {});
			reject(new Error('refused the profile: ' + d.message()));
		});
	});
	const failed = page.getByText('Something went wrong').waitFor({ timeout: 60000 })
		.then(() => { throw new Error('failed on the profile (its error page)'); });
	refused.catch(() => {});
	failed.catch(() => {});
	await page.goto(`http://127.0.0.1:${port}/index.html#profileURL=/profile.txt`);
	// Loaded once the views are offered; then Ctrl+S, speedscope's Export.
	await Promise.race([page.getByText('Time Order').waitFor({ timeout: 60000 }), refused, failed]);
	const [download] = await Promise.all([
		page.waitForEvent('download', { timeout: 60000 }),
		page.keyboard.press('Control+s'),
	]);
	const stream = await download.createReadStream();
	const chunks = [];
	for await (const c of stream)
		chunks.push(c);
	process.stdout.write(Buffer.concat(chunks));
	if (errors.length) {
		console.error('speedscope: ' + errors.join('; '));
		status = 1;
	}
} catch (e) {
	console.error('speedscope: ' + e.message.split('\n')[0]);
	status = 1;
} finally {
	await browser.close();
	server.close();
}
process.exit(status);
