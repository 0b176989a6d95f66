#!/usr/bin/env node
// run-mcp's npm launcher. It finds the run-mcp binary of this platform (the
// optional dependency @run-mcp/<platform>-<arch>, or RUN_MCP_BINARY) and runs
// it with stdin, stdout and stderr passed straight through, so `npx -y run-mcp`
// is the binary: with no arguments the agent MCP server on stdio, otherwise a
// subcommand.
//
// The launcher itself never writes a byte to stdout (the MCP channel): what it
// has to say goes to stderr. Node cannot replace itself with the binary, so it
// waits for it, forwards the signals that stop it, and ends the way it ended:
// the same exit code, or the same signal raised on itself.
//
// Where npm ran the package's postinstall (install.js), this file has been
// replaced by the binary itself, so a command starts no Node; this launcher
// is what runs where install scripts did not (--ignore-scripts, Windows, and
// package managers other than npm). install.js reads PACKAGES from it.
'use strict';

const { spawn } = require('child_process');
const fs = require('fs');
const os = require('os');

// Keep in step with npm/build.mjs, which makes one package per entry.
const PACKAGES = {
  'linux x64': '@run-mcp/linux-x64',
  'linux arm64': '@run-mcp/linux-arm64',
  'darwin x64': '@run-mcp/darwin-x64',
  'darwin arm64': '@run-mcp/darwin-arm64',
  'win32 x64': '@run-mcp/win32-x64',
  'win32 arm64': '@run-mcp/win32-arm64',
};

const OVERRIDE = 'RUN_MCP_BINARY';

// 70 is run-mcp's own "internal error" code: run-mcp could not run at all.
const EXIT_CANNOT_RUN = 70;

function fail(message) {
  process.stderr.write('run-mcp: ' + message + '\n');
  process.exit(EXIT_CANNOT_RUN);
}

function binary() {
  const override = process.env[OVERRIDE];
  if (override) {
    if (!fs.existsSync(override)) {
      fail(OVERRIDE + ' names ' + JSON.stringify(override) + ', which does not exist. ' +
        'Point it at a run-mcp binary (from a release archive or `go install`), or unset it to use the one npm installed.');
    }
    return override;
  }
  const platform = process.platform + ' ' + process.arch;
  const pkg = PACKAGES[platform];
  if (!pkg) {
    fail('there is no prebuilt run-mcp for ' + platform + ' (built for: ' + Object.keys(PACKAGES).join(', ') + '). ' +
      'Build it with `go install github.com/run-mcp/run-mcp/cmd/run-mcp@latest` and set ' + OVERRIDE + ' to its path, or run that binary directly.');
  }
  const exe = process.platform === 'win32' ? 'run-mcp.exe' : 'run-mcp';
  let found;
  try {
    found = require.resolve(pkg + '/bin/' + exe);
  } catch (err) {
    fail('the package ' + pkg + ', which holds the run-mcp binary for ' + platform + ', is not installed. ' +
      'npm leaves it out when optional dependencies are turned off: reinstall without --no-optional or --omit=optional ' +
      '(npm i -g run-mcp, or clear the npx cache with `npx clear-npx-cache` and run `npx -y run-mcp` again), ' +
      'or set ' + OVERRIDE + ' to the path of a run-mcp binary.');
  }
  warnOnMismatch(pkg);
  return found;
}

// A platform package of another version (left by an earlier install higher
// up the tree) still runs, but the user should know why it behaves so.
function warnOnMismatch(pkg) {
  let own, theirs;
  try {
    own = require('../package.json').version;
    theirs = require(pkg + '/package.json').version;
  } catch (_) {
    return;
  }
  if (own !== theirs) {
    process.stderr.write('run-mcp: warning: this launcher is ' + own + ' but ' + pkg + ' is ' + theirs +
      '; reinstall run-mcp so that both match.\n');
  }
}

function main() {
  const bin = binary();
  const child = spawn(bin, process.argv.slice(2), { stdio: 'inherit', windowsHide: true });

  // A signal sent to the launcher alone (a host stopping its server by pid)
  // must reach run-mcp, which then stops its own servers. A Ctrl-C at a
  // terminal reaches both already; run-mcp takes a second one in its stride.
  const forwarded = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  const forward = (sig) => {
    try {
      child.kill(sig);
    } catch (_) {
      // it has exited already
    }
  };
  for (const sig of forwarded) {
    process.on(sig, forward);
  }

  child.on('error', (err) => {
    fail('could not start ' + bin + ': ' + err.message + '. ' +
      'Check that it is a run-mcp binary for this platform and is executable, or reinstall run-mcp.');
  });

  child.on('exit', (code, signal) => {
    if (signal) {
      // End the way run-mcp ended: raise its signal on ourselves with the
      // default action, so our parent sees the same death.
      for (const sig of forwarded) {
        process.removeListener(sig, forward);
      }
      try {
        process.kill(process.pid, signal);
      } catch (_) {
        // fall through to the conventional code
      }
      process.exit(128 + (os.constants.signals[signal] || 0));
    }
    process.exit(code === null ? EXIT_CANNOT_RUN : code);
  });
}

if (require.main === module) {
  main();
}

module.exports = { PACKAGES };
