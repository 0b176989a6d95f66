// run-mcp's postinstall. Where it can, it puts this platform's run-mcp binary
// in place of the Node launcher (bin/run-mcp.js, which package.json's "bin"
// names and npm links onto PATH), and run-mcp-demo beside it, so that a
// command runs the binary with no Node start in front of it: esbuild's
// pattern. The launcher stays the fallback wherever this does not run or
// gives up: installs with --ignore-scripts, Windows (npm's .cmd shim runs the
// bin file with node), and package managers other than npm (yarn and pnpm
// write their own shims, which may run the file with node too).
//
// It never fails an install: anything unexpected leaves the launcher, which
// finds the binary at run time. It changes nothing unless the binary runs and
// says it is this package's version, and the swap is a rename, so the bin
// file is always either the whole launcher or the whole binary.
'use strict';

const { execFileSync } = require('child_process');
const fs = require('fs');
const path = require('path');

const bin = path.join(__dirname, 'bin');
const launcher = path.join(bin, 'run-mcp.js');

function main() {
  if (process.platform === 'win32') {
    return;
  }
  if (!(process.env.npm_config_user_agent || '').startsWith('npm/')) {
    return;
  }
  if (!isScript(launcher)) {
    return; // the binary is in place already (a second postinstall)
  }
  const pkg = require(launcher).PACKAGES[process.platform + ' ' + process.arch];
  if (!pkg) {
    return;
  }
  let runMCP, demo;
  try {
    runMCP = require.resolve(pkg + '/bin/run-mcp');
    demo = require.resolve(pkg + '/bin/run-mcp-demo');
  } catch (_) {
    return; // optional dependencies left out: the launcher says what to do
  }
  const version = require('./package.json').version;
  let said;
  try {
    said = execFileSync(runMCP, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 30000 });
  } catch (_) {
    return; // it does not run here: the launcher will say why
  }
  if (!said.startsWith('run-mcp ' + version + ' ') && said.trim() !== 'run-mcp ' + version) {
    return; // another version's binary: the launcher warns about it
  }
  // The demo server first: once run-mcp is in place, `run-mcp demo-server`
  // looks for run-mcp-demo beside it.
  place(demo, path.join(bin, 'run-mcp-demo'));
  place(runMCP, launcher);
}

// isScript says whether file starts as a script does (#!).
function isScript(file) {
  const head = Buffer.alloc(2);
  const fd = fs.openSync(file, 'r');
  try {
    return fs.readSync(fd, head, 0, 2, 0) === 2 && head.toString() === '#!';
  } finally {
    fs.closeSync(fd);
  }
}

// place puts a hard link to from (a copy where links are refused) at to,
// through a temporary name and a rename.
function place(from, to) {
  const tmp = to + '.' + process.pid + '.tmp';
  try {
    try {
      fs.linkSync(from, tmp);
    } catch (_) {
      fs.copyFileSync(from, tmp);
    }
    fs.chmodSync(tmp, 0o755);
    fs.renameSync(tmp, to);
  } finally {
    try {
      fs.unlinkSync(tmp);
    } catch (_) {
      // renamed, or never made
    }
  }
}

try {
  main();
} catch (_) {
  // Leave the launcher as it is: it works without this.
}
