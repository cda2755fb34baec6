"use strict";
// The agentty npm package's launcher (the esbuild pattern): npm installed,
// as an optional dependency, the one platform package whose os, cpu and
// libc match this machine; run its binary with our arguments and stdio.
// Nothing is downloaded at install or at run time.
const { spawn } = require("child_process");

const supported = ["linux-x64", "linux-arm64", "darwin-x64", "darwin-arm64", "win32-x64", "win32-arm64"];

module.exports = function launch(name) {
  const platform = `${process.platform}-${process.arch}`;
  const pkg = `@agentty/${platform}`;
  if (!supported.includes(platform)) {
    fail(`agentty has no binary for ${platform} (it ships for ${supported.join(", ")}); ` +
      "build it from source: https://github.com/agentty/agentty#build-from-a-clone");
  }
  const exe = name + (process.platform === "win32" ? ".exe" : "");
  let bin;
  try {
    bin = require.resolve(`${pkg}/bin/${exe}`);
  } catch {
    fail(`${pkg}, the package with agentty's binary for ${platform}, is not installed: ` +
      "npm skips optional dependencies under --omit=optional or --no-optional; install agentty again without them");
  }
  const child = spawn(bin, process.argv.slice(2), { stdio: "inherit" });
  // SIGTERM and SIGHUP sent to this process are passed on. SIGINT is not:
  // a terminal's Ctrl-C reaches the child itself (same process group), and
  // twice would read as a second Ctrl-C. Either way this process stays
  // until the child is gone, so its caller sees agentty's own exit.
  for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"]) {
    process.on(sig, () => {
      if (sig !== "SIGINT") child.kill(sig);
    });
  }
  child.on("error", (err) => fail(`cannot run ${bin}: ${err.message}`));
  child.on("exit", (code, signal) => {
    if (signal) {
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
      return;
    }
    process.exit(code);
  });
};

function fail(msg) {
  process.stderr.write(`agentty: ${msg}\n`);
  process.exit(1);
}
