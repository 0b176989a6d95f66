// Assembles run-mcp's npm packages and packs them with `npm pack`:
//
//   node npm/build.mjs --version 0.4.0 --bins dist/npm/bin --out dist/npm
//   node npm/build.mjs … --only linux-x64    the launcher and that platform's
//                                           package alone (make bench, tests)
//
// --bins holds one directory per Go target (linux-amd64/run-mcp and
// linux-amd64/run-mcp-demo, …, windows-arm64/run-mcp.exe and
// windows-arm64/run-mcp-demo.exe), built by `make npm`. The result, in --out:
//
//   run-mcp-<version>.tgz                 the launcher (npm/run-mcp), whose
//                                         optionalDependencies name every
//                                         platform package at the same version
//   run-mcp-<platform>-<version>.tgz      @run-mcp/<platform>: run-mcp and,
//                                         beside it, run-mcp-demo (which
//                                         `run-mcp demo-server` runs), with
//                                         "os" and "cpu" so npm installs only
//                                         the one that fits
//
// npm picks the platform package by its os and cpu fields. The launcher's
// postinstall (npm/run-mcp/install.js) puts that package's binaries in place
// of the JS launcher where it can, so a command starts no Node; where install
// scripts do not run, the launcher finds the binary at run time. Publishing
// is a release step (docs/RELEASING.md), never part of the build.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.dirname(here);

// npm's names (process.platform, process.arch) for each Go target. The
// launcher's PACKAGES table must name the same packages.
const PLATFORMS = [
  { goos: 'linux', goarch: 'amd64', os: 'linux', cpu: 'x64', label: 'Linux x64' },
  { goos: 'linux', goarch: 'arm64', os: 'linux', cpu: 'arm64', label: 'Linux arm64' },
  { goos: 'darwin', goarch: 'amd64', os: 'darwin', cpu: 'x64', label: 'macOS x64' },
  { goos: 'darwin', goarch: 'arm64', os: 'darwin', cpu: 'arm64', label: 'macOS arm64 (Apple silicon)' },
  { goos: 'windows', goarch: 'amd64', os: 'win32', cpu: 'x64', label: 'Windows x64' },
  { goos: 'windows', goarch: 'arm64', os: 'win32', cpu: 'arm64', label: 'Windows arm64' },
];

const REPOSITORY = { type: 'git', url: 'git+https://github.com/run-mcp/run-mcp.git' };
const HOMEPAGE = 'https://github.com/run-mcp/run-mcp#readme';

function die(message) {
  process.stderr.write('npm/build.mjs: ' + message + '\n');
  process.exit(1);
}

const { values } = parseArgs({ options: { version: { type: 'string' }, bins: { type: 'string' }, out: { type: 'string' }, only: { type: 'string' } } });
const version = values.version;
if (!version || !/^\d+\.\d+\.\d+([-+][0-9A-Za-z.+-]+)?$/.test(version)) {
  die('--version must be a semver version such as 0.4.0 (got ' + JSON.stringify(version) + '); `make npm` passes the VERSION file');
}
if (!values.bins || !values.out) {
  die('--bins <dir of built binaries> and --out <dir for the tarballs> are both needed; run it through `make npm`');
}
const names = PLATFORMS.map((p) => p.os + '-' + p.cpu);
const only = values.only ? values.only.split(',') : names;
for (const o of only) {
  if (!names.includes(o)) die('--only ' + o + ': not one of ' + names.join(', '));
}
const out = path.resolve(values.out);
const stage = path.join(out, 'pkg');
fs.rmSync(stage, { recursive: true, force: true });

const license = path.join(root, 'LICENSE');
if (!fs.existsSync(license)) die('LICENSE is missing at the repository root; every package ships it');

function writeJSON(file, value) {
  fs.writeFileSync(file, JSON.stringify(value, null, 2) + '\n');
}

function pack(dir) {
  // --json keeps npm's own report off our output; the file name is in it.
  const report = JSON.parse(execFileSync('npm', ['pack', '--json', '--pack-destination', out], { cwd: dir, encoding: 'utf8' }));
  return report[0].filename;
}

const optionalDependencies = {};
const tarballs = [];
for (const p of PLATFORMS) {
  const name = '@run-mcp/' + p.os + '-' + p.cpu;
  optionalDependencies[name] = version; // every platform, whichever are packed
  if (!only.includes(p.os + '-' + p.cpu)) {
    continue;
  }
  const ext = p.goos === 'windows' ? '.exe' : '';
  const exes = ['run-mcp' + ext, 'run-mcp-demo' + ext];
  const dir = path.join(stage, p.os + '-' + p.cpu);
  fs.mkdirSync(path.join(dir, 'bin'), { recursive: true });
  for (const exe of exes) {
    const built = path.join(path.resolve(values.bins), p.goos + '-' + p.goarch, exe);
    if (!fs.existsSync(built)) die('no binary at ' + built + ' for ' + name + '; `make npm` builds them first');
    fs.copyFileSync(built, path.join(dir, 'bin', exe));
    fs.chmodSync(path.join(dir, 'bin', exe), 0o755);
  }
  fs.copyFileSync(license, path.join(dir, 'LICENSE'));
  fs.writeFileSync(path.join(dir, 'README.md'),
    '# ' + name + '\n\nThe run-mcp binaries for ' + p.label + ' (run-mcp, and run-mcp-demo, which `run-mcp demo-server` runs). ' +
    'Install `run-mcp`, not this package: it picks the binaries that fit the platform.\n\n' + HOMEPAGE + '\n');
  writeJSON(path.join(dir, 'package.json'), {
    name, version,
    description: 'The run-mcp binaries for ' + p.label,
    license: 'MIT',
    repository: REPOSITORY,
    homepage: HOMEPAGE,
    os: [p.os],
    cpu: [p.cpu],
    files: exes.map((exe) => 'bin/' + exe),
    preferUnplugged: true, // Yarn PnP: keep the binary on disk where it can run
  });
  tarballs.push(pack(dir));
}

const launcher = path.join(stage, 'run-mcp');
fs.cpSync(path.join(here, 'run-mcp'), launcher, { recursive: true });
fs.chmodSync(path.join(launcher, 'bin', 'run-mcp.js'), 0o755);
fs.copyFileSync(license, path.join(launcher, 'LICENSE'));
writeJSON(path.join(launcher, 'package.json'), {
  name: 'run-mcp',
  version,
  description: 'Run, call, restart and diagnose the MCP server you are writing: a harness for coding agents',
  keywords: ['mcp', 'model-context-protocol', 'mcp-server', 'agent', 'harness'],
  license: 'MIT',
  repository: REPOSITORY,
  homepage: HOMEPAGE,
  bin: { 'run-mcp': 'bin/run-mcp.js' },
  files: ['bin/run-mcp.js', 'install.js'],
  scripts: { postinstall: 'node install.js' },
  engines: { node: '>=16' },
  optionalDependencies,
});
tarballs.unshift(pack(launcher));

for (const t of tarballs) process.stdout.write(path.join(values.out, t) + '\n');
